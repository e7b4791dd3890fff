import { InvalidInputError } from "../../core/errors.ts";

/** What openLocal's options may hold, checked before anything opens (each by its own rule). */
type Rule = (value: unknown) => boolean;

const positiveWhole: Rule = (value) => Number.isSafeInteger(value) && (value as number) >= 1;

/** The rule and, in words, what each option takes. */
const RULES: Record<string, [Rule, string]> = {
  dataDir: [(value) => typeof value === "string" && value.trim() !== "", "a directory path"],
  env: [
    (value) => typeof value === "object" && value !== null && !Array.isArray(value),
    "an object of variables",
  ],
  observer: [
    (value) => typeof value === "object" && value !== null,
    "an object with an appended(runId, event) method",
  ],
  agents: [
    (value) => typeof value === "object" && value !== null && !Array.isArray(value),
    "an object of agents by name ({ support: defineAgent(…) })",
  ],
  leaseMs: [positiveWhole, "a whole number of milliseconds, 1 or more"],
  stepsPerExecution: [positiveWhole, "a whole number of steps, 1 or more"],
  background: [(value) => typeof value === "boolean", "true or false"],
  onBackgroundError: [(value) => typeof value === "function", "a function (runId, error) => void"],
  onLifecycle: [(value) => typeof value === "function", "a function (event) => void"],
};

/**
 * openLocal's options, checked: an InvalidInputError naming the option (`field`) and what it takes,
 * before a store is opened. The options other modules own (models, prices, toolGroups,
 * retentionDays) are checked by their own rules where they are read.
 */
export function checkLocalOptions<T>(options: T): T {
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    throw new InvalidInputError(
      `openLocal: options must be an object ({ dataDir, agents, … }), got ${typeof options === "object" ? String(options) : typeof options}`,
      {
        field: "options",
      },
    );
  }
  for (const [field, [rule, takes]] of Object.entries(RULES)) {
    const value = (options as Record<string, unknown>)[field];
    if (value === undefined || rule(value)) continue;
    const got =
      typeof value === "string"
        ? `the string ${JSON.stringify(value)}`
        : typeof value === "number"
          ? String(value)
          : value === null
            ? "null"
            : `a ${typeof value}`;
    throw new InvalidInputError(`openLocal: ${field} must be ${takes}, got ${got}`, { field });
  }
  return options;
}
