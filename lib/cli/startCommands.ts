/**
 * The commands that start a run or go on with one: `run` and `resume`, with the flags they add
 * (`--metadata` and a run's budget).
 */
import type { Limits } from "../core/budget.ts";
import type { Metadata } from "../core/metadata.ts";
import { type Command, MODEL, one, optional, requiredInput, str } from "./command.ts";
import { resumeCommand, runCommand } from "./commands.ts";
import { INPUT_FILE } from "./input.ts";
import { parseSettings, SETTINGS, type Values } from "./settingsFlags.ts";
import { UsageError } from "./usage.ts";

/** `run --metadata`: a JSON object as text (its size and values are the library's to check). */
function parseMetadata(value: string | undefined): { metadata?: Metadata } {
  if (value === undefined) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new UsageError(
      `run: --metadata takes a JSON object such as '{"requestId":"r-1"}', got ${JSON.stringify(value)}`,
    );
  }
  return { metadata: parsed as Metadata };
}

/** A run's budget: `--max-turns N`, `--max-tokens N`, `--max-cost-usd USD` (docs/guides/budgets.md). */
const LIMITS = {
  "max-turns": { type: "string" },
  "max-tokens": { type: "string" },
  "max-cost-usd": { type: "string" },
} as const;

/** The limits the flags give, if any; a flag that is not a number is a usage error naming it. */
function parseLimits(command: string, values: Values): { limits?: Limits } {
  const number = (flag: string, pattern: RegExp, what: string) => {
    const value = str(values, flag);
    if (value === undefined) return undefined;
    if (!pattern.test(value))
      throw new UsageError(`${command}: --${flag} takes ${what}, got ${JSON.stringify(value)}`);
    return Number(value);
  };
  const limits: Limits = {
    ...optionalNumber("maxTurns", number("max-turns", /^\d+$/, "a whole number of model turns")),
    ...optionalNumber("maxTokens", number("max-tokens", /^\d+$/, "a whole number of tokens")),
    ...optionalNumber("maxCostUsd", number("max-cost-usd", /^\d+(\.\d+)?$/, "US dollars, such as 0.50")),
  };
  return Object.keys(limits).length === 0 ? {} : { limits };
}
const optionalNumber = <K extends string>(key: K, value: number | undefined) =>
  value === undefined ? {} : { [key]: value };

/** `run` and `resume`. */
export const START_COMMANDS = {
  run: {
    options: {
      agent: { type: "string", default: "demo" },
      "run-id": { type: "string" },
      metadata: { type: "string" },
      ...MODEL,
      ...LIMITS,
      ...SETTINGS,
      ...INPUT_FILE,
    },
    positionals: { min: 0, max: 1, names: 'one "prompt"' },
    creates: true,
    run: async (context, values, [prompt]) =>
      runCommand(context, {
        agent: str(values, "agent") ?? "demo",
        input: await requiredInput("run", "prompt", values, prompt),
        ...optional("model", str(values, "model")),
        ...optional("runId", str(values, "run-id")),
        ...parseMetadata(str(values, "metadata")),
        ...parseLimits("run", values),
        ...parseSettings("run", values),
      }),
  },
  resume: {
    options: { ...MODEL, ...LIMITS, ...SETTINGS },
    positionals: one("<runId>"),
    run: (context, values, [runId]) =>
      resumeCommand(
        context,
        {
          runId: runId!,
          ...optional("model", str(values, "model")),
          ...parseLimits("resume", values),
          ...parseSettings("resume", values),
        },
        // Each of these changes how the run goes on: typed on a run that does not resume, it is refused.
        Object.keys({ ...MODEL, ...LIMITS, ...SETTINGS })
          .filter((flag) => values[flag] !== undefined)
          .map((flag) => `--${flag}`),
      ),
  },
} satisfies Record<string, Command>;
