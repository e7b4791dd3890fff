import { randomBytes } from "node:crypto";

/** A new time-ordered run id: `run_` + milliseconds in base 36 + 40 random bits. */
export function newRunId(): string {
  return `run_${Date.now().toString(36)}${randomBytes(5).toString("hex")}`;
}
