import type { Context } from "hono";
import type { z } from "zod";
import { validateRunId } from "../core/ids.ts";
import { WITHOUT_JIT } from "../core/withoutJit.ts";
import { HttpError, invalidInput } from "./errors.ts";
import { issueWords, libraryRefusal } from "./issueWords.ts";
import { CallId } from "./schemas.ts";

/**
 * Turn a zod failure into a 400 that names the first bad field (`body` or `query` for the whole
 * thing) and says in words what it must be; a field the library checks (limits, modelSettings,
 * metadata) is refused in the library's own words, as `Runlog.start` refuses it.
 */
function fromZod(error: z.ZodError, where: string, value: unknown): HttpError {
  const issue = error.issues[0];
  if (!issue) return invalidInput(where, `${where} is invalid`);
  const top = issue.path[0];
  const library = where === "body" ? libraryRefusal(value, top) : undefined;
  if (library) return invalidInput(library.field ?? String(top), library.message);
  if (issue.code === "unrecognized_keys") {
    // Inside a nested object (limits …), the path to it: `limits.turns`, not `turns`.
    const key = issue.keys[0];
    const field = key === undefined ? where : [...issue.path, key].join(".");
    return invalidInput(field, `${where}: unknown field ${JSON.stringify(field)}`);
  }
  const field = issue.path.length > 0 ? issue.path.join(".") : where;
  return invalidInput(field, `${field}: ${issueWords(issue)}`);
}

/** Validate a value against a schema, or throw a 400 naming the field. */
export function check<S extends z.ZodType>(schema: S, value: unknown, where: string): z.output<S> {
  const parsed = schema.safeParse(value, WITHOUT_JIT);
  if (!parsed.success) throw fromZod(parsed.error, where, value);
  return parsed.data;
}

/** The media type of a JSON body, and the charset it names, if any. */
function jsonType(type: string | undefined): { json: boolean; charset?: string } {
  if (type === undefined || !/^application\/json\s*(;|$)/i.test(type)) return { json: false };
  const charset = /;\s*charset\s*=\s*"?([^";\s]*)"?/i.exec(type)?.[1];
  return charset === undefined ? { json: true } : { json: true, charset };
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * Read a JSON body and validate it. JSON only, even for an empty body: a
 * browser cannot send that cross-site without a preflight (which this API
 * never grants), so a web page cannot start or approve runs on a local server.
 * JSON is UTF-8 (RFC 8259): another charset is a 415 naming it, and bytes that are not UTF-8 a
 * 400, never text stored with U+FFFD in place of what was sent.
 * An empty body counts as `{}`, for routes whose fields are all optional.
 */
export async function readBody<S extends z.ZodType>(c: Context, schema: S): Promise<z.output<S>> {
  const { json, charset } = jsonType(c.req.header("content-type"));
  if (!json) {
    throw new HttpError(
      415,
      "unsupported_media_type",
      "send the body as JSON with Content-Type: application/json",
    );
  }
  if (charset !== undefined && !/^utf-?8$/i.test(charset)) {
    throw new HttpError(
      415,
      "unsupported_media_type",
      `the body's charset is ${JSON.stringify(charset.slice(0, 40))}: send JSON as UTF-8 (Content-Type: application/json, or charset=utf-8)`,
    );
  }
  let text: string;
  try {
    text = strictUtf8.decode(await c.req.arrayBuffer());
  } catch {
    throw invalidInput("body", "the request body is not valid UTF-8: send JSON as UTF-8");
  }
  let value: unknown = {};
  if (text.trim() !== "") {
    try {
      value = JSON.parse(text);
    } catch {
      throw invalidInput("body", "the request body is not valid JSON");
    }
  }
  return check(schema, value, "body");
}

/** Validate the query string (every parameter must be known, and given once). */
export function readQuery<S extends z.ZodType>(c: Context, schema: S): z.output<S> {
  for (const [name, values] of Object.entries(c.req.queries())) {
    if (values.length > 1) {
      throw invalidInput(name, `${name}: given ${values.length} times in the query string; give it once`);
    }
  }
  return check(schema, c.req.query(), "query");
}

/** The run id in the path (its parameter `id`, as the OpenAPI document names it), refused (400) when it could escape a key or a path. */
export function runIdParam(c: Context): string {
  try {
    return validateRunId(c.req.param("id") ?? "");
  } catch (error) {
    throw invalidInput("id", `id: ${(error as Error).message}`);
  }
}

/** The tool call id in the path. */
export function callIdParam(c: Context): string {
  return check(CallId, c.req.param("callId"), "callId");
}
