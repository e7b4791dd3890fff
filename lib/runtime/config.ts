/**
 * The names of every environment variable runlog reads, by configuration field, and where the data
 * dir is by default. configSchema.ts says what each variable may hold; readConfig.ts parses them
 * once, in the composition roots (openLocal, the CLI's main, functions/deps.ts), which pass the
 * values down. Nothing below lib/runtime reads the environment. docs/reference/configuration.md
 * lists the same variables; test/runtime/config.test.ts fails when the two disagree.
 *
 * An empty value is an unset one, for every variable: `RUNLOG_DIR= runlog ls` means what a shell
 * user means by it (the default), and a variable cannot be unset for one command otherwise.
 */

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
  openaiBaseUrl: "OPENAI_BASE_URL",
  openaiOrgId: "OPENAI_ORG_ID",
  openaiProjectId: "OPENAI_PROJECT_ID",
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

/** Where `openai:` models are called unless OPENAI_BASE_URL names another endpoint. */
export const OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1";

/** Where the data dir is when no variable or option names one: locally, and in a Lambda function (its only writable place). */
export const DEFAULT_DATA_DIR = { local: ".runlog", handlers: "/tmp/runlog" } as const;

/** A field of the configuration: NAMES[field] is its variable. */
export type ConfigField = keyof typeof NAMES;
