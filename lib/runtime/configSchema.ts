/**
 * The one configuration table: what every variable in NAMES may hold, with its default and the
 * words docs/reference/configuration.md and a ConfigError say of it, kept beside how it is read.
 */
import { MAX_RUNNING_PER_OWNER } from "../core/principal.ts";
import { MAX_RETENTION_DAYS } from "../core/retention.ts";
import { type ConfigField, DEFAULT_DATA_DIR, NAMES, OPENAI_DEFAULT_BASE_URL } from "./config.ts";
import {
  arn,
  atMost,
  crashAt,
  credential,
  functionArns,
  HANDLERS,
  httpUrl,
  KNOWN_CRASH_POINTS,
  LOCAL,
  list,
  noSpaces,
  oneOf,
  optional,
  pattern,
  positiveNumber,
  regionName,
  tableName,
  text,
  type ValuesOf,
  type Variable,
  wholeNumber,
  withDefault,
} from "./configValues.ts";

/** Every variable of the environment, by field (see NAMES for each field's variable). */
export const CONFIG = {
  dataDir: optional(text, {
    readBy: "both",
    default: `./${DEFAULT_DATA_DIR.local} locally, ${DEFAULT_DATA_DIR.handlers} in a Lambda function`,
    allowed: "a directory path",
  }),
  legacyDataDir: optional(text, {
    readBy: "both",
    default: "unset",
    allowed: `a directory path (deprecated: use ${NAMES.dataDir}, which wins when both are set)`,
  }),
  agents: optional(text, {
    readBy: LOCAL,
    default: "unset: the built-in demo agent",
    allowed: "the path of a module exporting `agents`",
  }),
  stepsPerExecution: optional(wholeNumber(1), {
    readBy: "both",
    default: "500",
    allowed: "a whole number of steps, 1 or more",
  }),
  retentionDays: optional((value) => atMost(positiveNumber(value), MAX_RETENTION_DAYS), {
    readBy: "both",
    default: "unset: finished runs are kept forever",
    allowed: `a positive number of days up to ${MAX_RETENTION_DAYS} (e.g. 30 or 0.5)`,
  }),
  durability: withDefault(oneOf("full", "normal"), "full", {
    readBy: LOCAL,
    default: "full",
    allowed: "full or normal",
  }),
  dynamodbEndpoint: optional(httpUrl, {
    readBy: LOCAL,
    default: "unset: the SQLite file in the data dir",
    allowed: "an http:// or https:// URL",
  }),
  table: optional(tableName, {
    readBy: LOCAL,
    default: "runlog (with an endpoint); unset: the SQLite file in the data dir",
    allowed: "a DynamoDB table name (3 to 255 of A-Z a-z 0-9 _ . -)",
  }),
  stateMachine: optional(arn, {
    readBy: LOCAL,
    default: "unset: runlog serve serves this machine's runs",
    allowed: "a state machine ARN (arn:…)",
  }),
  retryIntervalMs: optional(wholeNumber(0), {
    readBy: LOCAL,
    default: "unset: the state machine's own backoff",
    allowed: "a whole number of milliseconds, 0 or more",
  }),
  crashAt: optional(crashAt, {
    readBy: LOCAL,
    default: "unset: no fault injected",
    allowed: `<point>[@<n>], n 1 or more, a point among: ${KNOWN_CRASH_POINTS.join(", ")}`,
  }),
  demoModel: withDefault(text, "gpt-4.1-mini", {
    readBy: LOCAL,
    default: "gpt-4.1-mini",
    allowed: "an OpenAI model name",
  }),
  openaiApiKey: optional(credential, {
    readBy: LOCAL,
    default: "unset: openai: models cannot be called",
    allowed: "an API key, without spaces or line breaks",
    secret: true,
  }),
  openaiBaseUrl: optional(httpUrl, {
    readBy: "both",
    default: OPENAI_DEFAULT_BASE_URL,
    allowed: "an http:// or https:// URL",
  }),
  openaiOrgId: optional(noSpaces, {
    readBy: "both",
    default: "unset: the key's default organization",
    allowed: "an OpenAI organization id, without spaces",
  }),
  openaiProjectId: optional(noSpaces, {
    readBy: "both",
    default: "unset: the key's default project",
    allowed: "an OpenAI project id, without spaces",
  }),
  awsRegion: optional(regionName, {
    readBy: LOCAL,
    default: "local (with an endpoint); else the SDK's",
    allowed: "an AWS region name: lowercase letters, digits and dashes, as us-east-1",
  }),
  awsDefaultRegion: optional(regionName, {
    readBy: LOCAL,
    default: "unset",
    allowed: "an AWS region name: lowercase letters, digits and dashes, as us-east-1",
  }),
  awsAccessKeyId: optional(credential, {
    readBy: LOCAL,
    default: "local (with an endpoint)",
    allowed: "an access key id, without spaces or line breaks",
    secret: true,
  }),
  awsSecretAccessKey: optional(credential, {
    readBy: LOCAL,
    default: "local (with an endpoint)",
    allowed: "a secret access key, without spaces or line breaks",
    secret: true,
  }),
  awsSessionToken: optional(credential, {
    readBy: LOCAL,
    default: "unset",
    allowed: "a session token, without spaces or line breaks",
    secret: true,
  }),
  tableName: optional(tableName, {
    readBy: HANDLERS,
    default: "none: required",
    allowed: "a DynamoDB table name (3 to 255 of A-Z a-z 0-9 _ . -)",
  }),
  stateMachineArn: optional(arn, {
    readBy: HANDLERS,
    default: "unset: the function starts no executions",
    allowed: "a state machine ARN (arn:…)",
  }),
  modelKeySecretArn: optional(text, {
    readBy: HANDLERS,
    default: "unset: openai: models cannot be called",
    allowed: "the ARN of a Secrets Manager secret",
  }),
  leaseMs: optional(wholeNumber(1), {
    readBy: HANDLERS,
    default: "none: required",
    allowed: "a whole number of milliseconds, 1 or more",
  }),
  stepTimeoutSeconds: optional(wholeNumber(1, 900), {
    readBy: HANDLERS,
    default: "unset: the task's own timeout (CallModel and RunTool 900)",
    allowed:
      "a whole number of seconds, 1 to 900: the CallModel or RunTool function's timeout (cdk's `functions` prop sets it)",
  }),
  cancelPollMs: withDefault(wholeNumber(1), 2_000, {
    readBy: HANDLERS,
    default: "2000",
    allowed: "a whole number of milliseconds, 1 or more",
  }),
  statusShards: optional(wholeNumber(1, 32), {
    readBy: "both",
    default: "8",
    allowed: "a whole number of shards of the DynamoDB status index, 1 to 32",
  }),
  deployment: optional(pattern(/^[A-Za-z0-9_./-]{1,255}$/), {
    readBy: HANDLERS,
    default: "unset: metrics carry no deployment dimension",
    allowed: "1 to 255 of A-Z a-z 0-9 _ . / -",
  }),
  redriveAfterMs: optional(wholeNumber(1), {
    readBy: HANDLERS,
    default: "unset: no automatic redrive",
    allowed: "a whole number of milliseconds, 1 or more",
  }),
  deadLettersUrl: optional(httpUrl, {
    readBy: HANDLERS,
    default: "unset: the function redrives no dead letters",
    allowed: "an SQS queue URL (https://…)",
  }),
  redriveTargets: optional(functionArns, {
    readBy: HANDLERS,
    default: "unset: no dead letter is redriven",
    allowed: "Lambda function ARNs without a qualifier, separated by commas",
  }),
  maxRunningPerOwner: optional(wholeNumber(1, MAX_RUNNING_PER_OWNER), {
    readBy: "both",
    default: "unset: no cap",
    allowed: `a whole number of runs one owner may have running at once, 1 to ${MAX_RUNNING_PER_OWNER}`,
  }),
  auth: withDefault(oneOf("iam", "jwt"), "iam", {
    readBy: HANDLERS,
    default: "iam",
    allowed: "iam or jwt",
  }),
  tenantClaim: optional(noSpaces, {
    readBy: HANDLERS,
    default: "unset: each JWT subject owns its own runs",
    allowed: "a JWT claim name, without spaces",
  }),
  adminScope: optional(noSpaces, {
    readBy: HANDLERS,
    default: "unset: no JWT caller is an admin",
    allowed: "an OAuth scope, without spaces",
  }),
  adminPrincipals: optional(list, {
    readBy: HANDLERS,
    default: "unset: no IAM caller is an admin",
    allowed: "IAM principal ARN patterns (* any run of characters), separated by commas",
  }),
  modelsAllow: optional(list, {
    readBy: HANDLERS,
    default: "unset: every model spec runlog knows",
    allowed: "model spec patterns (* any run of characters), separated by commas",
  }),
  trustedEventSources: optional(list, {
    readBy: HANDLERS,
    default: "unset: no event's detail.owner is believed",
    allowed: "EventBridge source values, separated by commas",
  }),
  eventBusName: optional(pattern(/^[A-Za-z0-9._\-/]{1,256}$/), {
    readBy: HANDLERS,
    default: "unset: the function publishes no lifecycle events",
    allowed: "an EventBridge bus name",
  }),
  apiUrl: optional(httpUrl, {
    readBy: HANDLERS,
    default: "unset: a lifecycle event too big for EventBridge names the run and seq, without a link",
    allowed: "the deployment's HTTP API URL (https://…)",
  }),
  url: optional(httpUrl, {
    readBy: LOCAL,
    default: "unset: the CLI reads and steers the runs of its data dir (or table)",
    allowed:
      "runlog's HTTP API (a stack's HttpApiUrl, runlog serve's address): the CLI calls it instead of a store",
  }),
  token: optional(credential, {
    readBy: LOCAL,
    default: "unset: SigV4 for an https URL, no auth for http",
    allowed: `a bearer token for ${NAMES.url} (a JWT, runlog serve's token)`,
    secret: true,
  }),
} satisfies Record<ConfigField, Variable<unknown>>;

/** The values the environment gives, by field: those with a default always there. */
export type ConfigValues = ValuesOf<typeof CONFIG>;
