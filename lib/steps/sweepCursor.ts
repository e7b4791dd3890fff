import { InvalidInputError } from "../core/errors.ts";

/** Where a sweep stands: the status it is in (by its index) and the listing's cursor there. */
export interface Position {
  status: number;
  list?: string;
  /** The last head looked at on the page `list` starts (updatedAt, runId): those up to it are done. */
  done?: [string, string];
}

export function encodeCursor(position: Position): string {
  return Buffer.from(JSON.stringify(position)).toString("base64url");
}

export function decodeCursor(cursor: string, statuses: number): Position {
  const refused = (cause?: unknown) =>
    new InvalidInputError(
      `cursor: expected the cursor of an earlier sweep's report, got ${JSON.stringify(cursor.slice(0, 40))}`,
      cause === undefined ? undefined : { cause },
    );
  let parsed: Position;
  try {
    parsed = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as Position;
  } catch (error) {
    throw refused(error);
  }
  const status = Number.isInteger(parsed?.status) && parsed.status >= 0 && parsed.status < statuses;
  const list = parsed?.list === undefined || typeof parsed.list === "string";
  const done = parsed?.done === undefined || (Array.isArray(parsed.done) && parsed.done.length === 2);
  if (!status || !list || !done) throw refused();
  return parsed;
}
