/**
 * Allow-list patterns: a value matches a pattern equal to it, where each `*` stands for any run
 * of characters (none included). Nothing else is special, so an ARN or a model spec is written as
 * it is (`arn:aws:sts::123456789012:assumed-role/Admin/*`, `openai:gpt-4.1*`).
 */

const escaped = (text: string) => text.replace(/[.+?^${}()|[\]\\]/g, "\\$&");

/** Whether `value` matches `pattern` (`*` any run of characters, the rest literal). */
export function matchesPattern(value: string, pattern: string): boolean {
  const source = pattern.split("*").map(escaped).join(".*");
  return new RegExp(`^${source}$`, "s").test(value);
}

/** Whether `value` matches any of `patterns`. */
export function matchesAny(value: string, patterns: readonly string[]): boolean {
  return patterns.some((pattern) => matchesPattern(value, pattern));
}
