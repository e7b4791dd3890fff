/**
 * Parsing the environment once, against the one schema: the values a composition root passes
 * down, or one ConfigError naming every bad or missing variable (a secret's value never shown).
 */
import type * as z from "zod";
import { type ConfigField, DEFAULT_DATA_DIR, NAMES } from "./config.ts";
import { ConfigError, type ConfigProblem } from "./configError.ts";
import { ConfigSchema } from "./configSchema.ts";
import { VARIABLE_DOCS } from "./configValues.ts";

type Parsed = z.output<typeof ConfigSchema>;

/** Everything the environment configures; the data dir's default applied, the deprecated name folded in. */
export type RunlogConfig = Omit<Parsed, "legacyDataDir" | "dataDir"> & { dataDir: string };
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
  // An empty value is an unset one (see the top of config.ts).
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
