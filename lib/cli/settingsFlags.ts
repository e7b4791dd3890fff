import type { ModelSettings } from "../core/modelSettings.ts";
import { UsageError } from "./usage.ts";

/** What a command's flags parsed to: a repeated flag (`--stop`) gives its values in order. */
export type Values = Record<string, string | boolean | string[] | undefined>;

/**
 * A run's model settings: `--temperature T`, `--max-output-tokens N`, `--top-p P`, `--stop TEXT`
 * (repeat it for several). Their limits are the library's to check (lib/core/modelSettings.ts).
 */
export const SETTINGS = {
  temperature: { type: "string" },
  "max-output-tokens": { type: "string" },
  "top-p": { type: "string" },
  stop: { type: "string", multiple: true },
} as const;

const NUMBER = /^\d+(\.\d+)?$/;

/** The settings the flags give, if any; a flag that is not a number is a usage error naming it. */
export function parseSettings(command: string, values: Values): { modelSettings?: ModelSettings } {
  const number = (flag: string, pattern: RegExp, what: string) => {
    const value = values[flag];
    if (typeof value !== "string") return undefined;
    if (!pattern.test(value))
      throw new UsageError(`${command}: --${flag} takes ${what}, got ${JSON.stringify(value)}`);
    return Number(value);
  };
  const temperature = number("temperature", NUMBER, "a number such as 0.2");
  const maxOutputTokens = number("max-output-tokens", /^\d+$/, "a whole number of tokens");
  const topP = number("top-p", NUMBER, "a number such as 0.9");
  const stop = values.stop;
  const modelSettings: ModelSettings = {
    ...(temperature === undefined ? {} : { temperature }),
    ...(maxOutputTokens === undefined ? {} : { maxOutputTokens }),
    ...(topP === undefined ? {} : { topP }),
    ...(Array.isArray(stop) && stop.length > 0 ? { stopSequences: stop } : {}),
  };
  return Object.keys(modelSettings).length === 0 ? {} : { modelSettings };
}
