/**
 * The one configuration schema: every environment variable runlog reads, parsed once by the
 * composition roots (openLocal, the CLI's main, functions/deps.ts) and passed down as values.
 * Nothing below lib/runtime reads the environment. docs/reference/configuration.md lists the
 * same variables; test/runtime/config.test.ts fails when the two disagree.
 *
 * An empty value is an unset one, for every variable: `RUNLOG_DIR= runlog ls` means what a shell
 * user means by it (the default), and a variable cannot be unset for one command otherwise.
 */
import * as z from "zod";
import { ConfigError, type ConfigProblem } from "./configError.ts";
import {
  crashAt,
  credential,
  doc,
  functionArns,
  HANDLERS,
  httpUrl,
  KNOWN_CRASH_POINTS,
  LOCAL,
  list,
  positiveNumber,
  tableName,
  text,
  VARIABLE_DOCS,
  wholeNumber,
} from "./configValues.ts";

export { ConfigError, type ConfigProblem } from "./configError.ts";
export { type CrashAt, type ReadBy, VARIABLE_DOCS, type VariableDoc } from "./configValues.ts";

/** Each configuration value's variable. Import these instead of spelling a name. */
export const NAMES = {
  dataDir: "RUNLOG_DIR",
  legacyDataDir: "RUNLOG_DATA_DIR",
  agents: "RUNLOG_AGENTS",
  stepsPerExecution: "RUNLOG_STEPS_PER_EXECUTION",
  retentionDays: "RUNLOG_RETENTION_DAYS",
  durability: "RUNLOG_DURABILITY",
  dynamodbEndpoint: "RUNLOG_DYNAMODB_ENDPOINT",
  table: "RUNLOG_TABLE",
  stateMachine: "RUNLOG_STATE_MACHINE_ARN",
  retryIntervalMs: "RUNLOG_RETRY_INTERVAL_MS",
  crashAt: "RUNLOG_CRASH_AT",
  demoModel: "RUNLOG_DEMO_MODEL",
  openaiApiKey: "OPENAI_API_KEY",
  awsRegion: "AWS_REGION",
  awsDefaultRegion: "AWS_DEFAULT_REGION",
  awsAccessKeyId: "AWS_ACCESS_KEY_ID",
  awsSecretAccessKey: "AWS_SECRET_ACCESS_KEY",
  awsSessionToken: "AWS_SESSION_TOKEN",
  tableName: "TABLE_NAME",
  stateMachineArn: "STATE_MACHINE_ARN",
  modelKeySecretArn: "MODEL_KEY_SECRET_ARN",
  leaseMs: "RUNLOG_LEASE_MS",
  stepTimeoutSeconds: "RUNLOG_STEP_TIMEOUT_SECONDS",
  cancelPollMs: "RUNLOG_CANCEL_POLL_MS",
  statusShards: "RUNLOG_STATUS_SHARDS",
  deployment: "RUNLOG_DEPLOYMENT",
  redriveAfterMs: "RUNLOG_REDRIVE_AFTER_MS",
  deadLettersUrl: "RUNLOG_DEAD_LETTERS_URL",
  redriveTargets: "RUNLOG_REDRIVE_TARGETS",
  maxRunningPerOwner: "RUNLOG_MAX_RUNNING_PER_OWNER",
  auth: "RUNLOG_AUTH",
  tenantClaim: "RUNLOG_TENANT_CLAIM",
  adminScope: "RUNLOG_ADMIN_SCOPE",
  adminPrincipals: "RUNLOG_ADMIN_PRINCIPALS",
  modelsAllow: "RUNLOG_MODELS_ALLOW",
  trustedEventSources: "RUNLOG_TRUSTED_EVENT_SOURCES",
  eventBusName: "RUNLOG_EVENT_BUS",
  apiUrl: "RUNLOG_API_URL",
  url: "RUNLOG_URL",
  token: "RUNLOG_TOKEN",
} as const;

/** Where the data dir is when no variable or option names one: locally, and in a Lambda function (its only writable place). */
export const DEFAULT_DATA_DIR = { local: ".runlog", handlers: "/tmp/runlog" } as const;

/** The schema of the environment, by field (see NAMES for each field's variable). */
export const ConfigSchema = z.object({
  dataDir: doc(text.optional(), {
    readBy: "both",
    default: `./${DEFAULT_DATA_DIR.local} locally, ${DEFAULT_DATA_DIR.handlers} in a Lambda function`,
    allowed: "a directory path",
  }),
  legacyDataDir: doc(text.optional(), {
    readBy: "both",
    default: "unset",
    allowed: `a directory path (deprecated: use ${NAMES.dataDir}, which wins when both are set)`,
  }),
  agents: doc(text.optional(), {
    readBy: LOCAL,
    default: "unset: the built-in demo agent",
    allowed: "the path of a module exporting `agents`",
  }),
  stepsPerExecution: doc(wholeNumber(1).optional(), {
    readBy: "both",
    default: "500",
    allowed: "a whole number of steps, 1 or more",
  }),
  retentionDays: doc(positiveNumber.optional(), {
    readBy: "both",
    default: "unset: finished runs are kept forever",
    allowed: "a positive number of days (e.g. 30 or 0.5)",
  }),
  durability: doc(z.enum(["full", "normal"]).default("full"), {
    readBy: LOCAL,
    default: "full",
    allowed: "full or normal",
  }),
  dynamodbEndpoint: doc(httpUrl.optional(), {
    readBy: LOCAL,
    default: "unset: the SQLite file in the data dir",
    allowed: "an http:// or https:// URL",
  }),
  table: doc(tableName.optional(), {
    readBy: LOCAL,
    default: "runlog (with an endpoint); unset: the SQLite file in the data dir",
    allowed: "a DynamoDB table name (3 to 255 of A-Z a-z 0-9 _ . -)",
  }),
  stateMachine: doc(z.string().startsWith("arn:").optional(), {
    readBy: LOCAL,
    default: "unset: runlog serve serves this machine's runs",
    allowed: "a state machine ARN (arn:…)",
  }),
  retryIntervalMs: doc(wholeNumber(0).optional(), {
    readBy: LOCAL,
    default: "unset: the state machine's own backoff",
    allowed: "a whole number of milliseconds, 0 or more",
  }),
  crashAt: doc(crashAt.optional(), {
    readBy: LOCAL,
    default: "unset: no fault injected",
    allowed: `<point>[@<n>], n 1 or more, a point among: ${KNOWN_CRASH_POINTS.join(", ")}`,
  }),
  demoModel: doc(text.default("gpt-4.1-mini"), {
    readBy: LOCAL,
    default: "gpt-4.1-mini",
    allowed: "an OpenAI model name",
  }),
  openaiApiKey: doc(credential.optional(), {
    readBy: LOCAL,
    default: "unset: openai: models cannot be called",
    allowed: "an API key, without spaces or line breaks",
    secret: true,
  }),
  awsRegion: doc(text.optional(), {
    readBy: LOCAL,
    default: "local (with an endpoint); else the SDK's",
    allowed: "an AWS region name",
  }),
  awsDefaultRegion: doc(text.optional(), {
    readBy: LOCAL,
    default: "unset",
    allowed: "an AWS region name",
  }),
  awsAccessKeyId: doc(credential.optional(), {
    readBy: LOCAL,
    default: "local (with an endpoint)",
    allowed: "an access key id, without spaces or line breaks",
    secret: true,
  }),
  awsSecretAccessKey: doc(credential.optional(), {
    readBy: LOCAL,
    default: "local (with an endpoint)",
    allowed: "a secret access key, without spaces or line breaks",
    secret: true,
  }),
  awsSessionToken: doc(credential.optional(), {
    readBy: LOCAL,
    default: "unset",
    allowed: "a session token, without spaces or line breaks",
    secret: true,
  }),
  tableName: doc(tableName.optional(), {
    readBy: HANDLERS,
    default: "none: required",
    allowed: "a DynamoDB table name (3 to 255 of A-Z a-z 0-9 _ . -)",
  }),
  stateMachineArn: doc(z.string().startsWith("arn:").optional(), {
    readBy: HANDLERS,
    default: "unset: the function starts no executions",
    allowed: "a state machine ARN (arn:…)",
  }),
  modelKeySecretArn: doc(text.optional(), {
    readBy: HANDLERS,
    default: "unset: openai: models cannot be called",
    allowed: "the ARN of a Secrets Manager secret",
  }),
  leaseMs: doc(wholeNumber(1).optional(), {
    readBy: HANDLERS,
    default: "none: required",
    allowed: "a whole number of milliseconds, 1 or more",
  }),
  stepTimeoutSeconds: doc(wholeNumber(1).pipe(z.number().max(900)).optional(), {
    readBy: HANDLERS,
    default: "unset: the task's own timeout (CallModel and RunTool 900)",
    allowed:
      "a whole number of seconds, 1 to 900: the CallModel or RunTool function's timeout (cdk's `functions` prop sets it)",
  }),
  cancelPollMs: doc(wholeNumber(1).default(2_000), {
    readBy: HANDLERS,
    default: "2000",
    allowed: "a whole number of milliseconds, 1 or more",
  }),
  statusShards: doc(wholeNumber(1).pipe(z.number().max(32)).optional(), {
    readBy: "both",
    default: "8",
    allowed: "a whole number of shards of the DynamoDB status index, 1 to 32",
  }),
  deployment: doc(
    z
      .string()
      .regex(/^[A-Za-z0-9_./-]{1,255}$/)
      .optional(),
    {
      readBy: HANDLERS,
      default: "unset: metrics carry no deployment dimension",
      allowed: "1 to 255 of A-Z a-z 0-9 _ . / -",
    },
  ),
  redriveAfterMs: doc(wholeNumber(1).optional(), {
    readBy: HANDLERS,
    default: "unset: no automatic redrive",
    allowed: "a whole number of milliseconds, 1 or more",
  }),
  deadLettersUrl: doc(httpUrl.optional(), {
    readBy: HANDLERS,
    default: "unset: the function redrives no dead letters",
    allowed: "an SQS queue URL (https://…)",
  }),
  redriveTargets: doc(functionArns.optional(), {
    readBy: HANDLERS,
    default: "unset: no dead letter is redriven",
    allowed: "Lambda function ARNs without a qualifier, separated by commas",
  }),
  maxRunningPerOwner: doc(wholeNumber(1).pipe(z.number().max(1000)).optional(), {
    readBy: "both",
    default: "unset: no cap",
    allowed: "a whole number of runs one owner may have running at once, 1 to 1000",
  }),
  auth: doc(z.enum(["iam", "jwt"]).default("iam"), {
    readBy: HANDLERS,
    default: "iam",
    allowed: "iam or jwt",
  }),
  tenantClaim: doc(z.string().regex(/^\S+$/).optional(), {
    readBy: HANDLERS,
    default: "unset: each JWT subject owns its own runs",
    allowed: "a JWT claim name, without spaces",
  }),
  adminScope: doc(z.string().regex(/^\S+$/).optional(), {
    readBy: HANDLERS,
    default: "unset: no JWT caller is an admin",
    allowed: "an OAuth scope, without spaces",
  }),
  adminPrincipals: doc(list.optional(), {
    readBy: HANDLERS,
    default: "unset: no IAM caller is an admin",
    allowed: "IAM principal ARN patterns (* any run of characters), separated by commas",
  }),
  modelsAllow: doc(list.optional(), {
    readBy: HANDLERS,
    default: "unset: every model spec runlog knows",
    allowed: "model spec patterns (* any run of characters), separated by commas",
  }),
  trustedEventSources: doc(list.optional(), {
    readBy: HANDLERS,
    default: "unset: no event's detail.owner is believed",
    allowed: "EventBridge source values, separated by commas",
  }),
  eventBusName: doc(
    z
      .string()
      .regex(/^[A-Za-z0-9._\-/]{1,256}$/)
      .optional(),
    {
      readBy: HANDLERS,
      default: "unset: the function publishes no lifecycle events",
      allowed: "an EventBridge bus name",
    },
  ),
  apiUrl: doc(httpUrl.optional(), {
    readBy: HANDLERS,
    default: "unset: a lifecycle event too big for EventBridge names the run and seq, without a link",
    allowed: "the deployment's HTTP API URL (https://…)",
  }),
  url: doc(httpUrl.optional(), {
    readBy: LOCAL,
    default: "unset: the CLI reads and steers the runs of its data dir (or table)",
    allowed:
      "runlog's HTTP API (a stack's HttpApiUrl, runlog serve's address): the CLI calls it instead of a store",
  }),
  token: doc(credential.optional(), {
    readBy: LOCAL,
    default: "unset: SigV4 for an https URL, no auth for http",
    allowed: "a bearer token for RUNLOG_URL (a JWT, runlog serve's token)",
    secret: true,
  }),
});

type Parsed = z.output<typeof ConfigSchema>;

/** Everything the environment configures; the data dir's default applied, the deprecated name folded in. */
export type RunlogConfig = Omit<Parsed, "legacyDataDir" | "dataDir"> & { dataDir: string };
/** What a Lambda handler is configured with: as RunlogConfig, with its required variables there. */
export type HandlerConfig = RunlogConfig & { tableName: string; leaseMs: number };
/** A field of the configuration: NAMES[field] is its variable. */
export type ConfigField = keyof typeof NAMES;

export interface ReadOptions {
  /** Told about a deprecated variable in use, once per read. @default nothing told */
  warn?: (message: string) => void;
}

type Env = Readonly<Record<string, string | undefined>>;

const FIELDS = Object.keys(NAMES) as ConfigField[];

function shown(field: ConfigField, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  return VARIABLE_DOCS.get(ConfigSchema.shape[field])?.secret
    ? `<redacted, ${value.length} characters>`
    : JSON.stringify(value);
}

/**
 * Parse every variable of `env` once, for the local runtime and CLI (`for: "local"`, the default)
 * or a Lambda handler (`for: "handlers"`, which requires TABLE_NAME and the lease time). Pure over
 * `env`: a deprecated name is told to `warn`. Throws one ConfigError listing every problem.
 */
export function readConfig(env?: Env, options?: ReadOptions & { for?: "local" }): RunlogConfig;
export function readConfig(env: Env | undefined, options: ReadOptions & { for: "handlers" }): HandlerConfig;
export function readConfig(
  env: Env = process.env,
  options: ReadOptions & { for?: "local" | "handlers" } = {},
): RunlogConfig {
  const where = options.for ?? "local";
  const given: Partial<Record<ConfigField, string>> = {};
  // An empty value is an unset one (see the top of this file).
  for (const field of FIELDS) {
    const value = env[NAMES[field]];
    if (value !== undefined && value !== "") given[field] = value;
  }
  const parsed = ConfigSchema.safeParse(given, { jitless: true });
  const problems: ConfigProblem[] = [];
  if (!parsed.success) {
    const bad = new Set(parsed.error.issues.map((issue) => issue.path[0] as ConfigField));
    for (const field of FIELDS.filter((f) => bad.has(f))) problems.push(problem(field, given[field]));
  }
  const required: readonly ConfigField[] = where === "handlers" ? ["tableName", "leaseMs"] : [];
  for (const field of required) if (given[field] === undefined) problems.push(problem(field, undefined));
  if (problems.length > 0 || !parsed.success) throw new ConfigError(problems);
  const { legacyDataDir, dataDir, ...rest } = parsed.data;
  if (legacyDataDir !== undefined) {
    options.warn?.(
      `${NAMES.legacyDataDir} is deprecated: set ${NAMES.dataDir} instead` +
        (dataDir === undefined ? "" : ` (both are set: ${NAMES.dataDir} is used)`),
    );
  }
  return { ...rest, dataDir: dataDir ?? legacyDataDir ?? DEFAULT_DATA_DIR[where] };
}

function problem(field: ConfigField, value: string | undefined): ConfigProblem {
  const allowed = VARIABLE_DOCS.get(ConfigSchema.shape[field])?.allowed ?? "a value";
  return { variable: NAMES[field], value: shown(field, value), allowed };
}
