/**
 * Parsing the environment once, against the one table (configSchema.ts): the values a composition
 * root passes down, or one ConfigError naming every bad or missing variable (a secret's value never
 * shown).
 */
import { redactedValue } from "../core/redact.ts";
import { type ConfigField, DEFAULT_DATA_DIR, NAMES } from "./config.ts";
import { ConfigError, type ConfigProblem } from "./configError.ts";
import { CONFIG, type ConfigValues } from "./configSchema.ts";

/** Everything the environment configures; the data dir's default applied, the deprecated name folded in. */
export type RunlogConfig = Omit<ConfigValues, "legacyDataDir" | "dataDir"> & { dataDir: string };
/** What a Lambda handler is configured with: as RunlogConfig, with its required variables there. */
export type HandlerConfig = RunlogConfig & { tableName: string; leaseMs: number };

export interface ReadOptions {
  /** Told about a deprecated variable in use, once per read. @default nothing told */
  warn?: (message: string) => void;
}

type Env = Readonly<Record<string, string | undefined>>;

const FIELDS = Object.keys(NAMES) as ConfigField[];

function shown(field: ConfigField, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  return CONFIG[field].doc.secret ? redactedValue(value) : JSON.stringify(value);
}

/**
 * This process's environment without runlog's own variables (those that choose the store, the data
 * dir, faults …): what a test's throwaway runlog reads, whatever the shell holds.
 */
export function processEnvWithoutRunlog(): Env {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("RUNLOG_")));
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
  // An empty value is an unset one (see the top of config.ts).
  const textOf = (field: ConfigField) => env[NAMES[field]] || undefined;
  const values: Record<string, unknown> = {};
  const problems: ConfigProblem[] = [];
  for (const field of FIELDS) {
    const text = textOf(field);
    const value = text === undefined ? CONFIG[field].fallback : CONFIG[field].read(text);
    if (value !== undefined) values[field] = value;
    else if (text !== undefined) problems.push(problem(field, text));
  }
  const required: readonly ConfigField[] = where === "handlers" ? ["tableName", "leaseMs"] : [];
  for (const field of required) if (textOf(field) === undefined) problems.push(problem(field, undefined));
  if (problems.length > 0) throw new ConfigError(problems);
  const { legacyDataDir, dataDir, ...rest } = values as ConfigValues;
  if (legacyDataDir !== undefined) {
    options.warn?.(
      `${NAMES.legacyDataDir} is deprecated: set ${NAMES.dataDir} instead` +
        (dataDir === undefined ? "" : ` (both are set: ${NAMES.dataDir} is used)`),
    );
  }
  return { ...rest, dataDir: dataDir ?? legacyDataDir ?? DEFAULT_DATA_DIR[where] };
}

function problem(field: ConfigField, value: string | undefined): ConfigProblem {
  const { allowed } = CONFIG[field].doc;
  return { variable: NAMES[field], value: shown(field, value), allowed };
}
