import type { Context } from "hono";
import type { z } from "zod";
import { validateRunId } from "../core/ids.ts";
import { WITHOUT_JIT } from "../core/withoutJit.ts";
import { HttpError, invalidInput } from "./errors.ts";
import { CallId } from "./schemas.ts";

/** Turn a zod failure into a 400 that names the first bad field (`body` or `query` for the whole thing). */
function fromZod(error: z.ZodError, where: string): HttpError {
  const issue = error.issues[0];
  if (!issue) return invalidInput(where, `${where} is invalid`);
  if (issue.code === "unrecognized_keys") {
    // Inside a nested object (limits …), the path to it: `limits.turns`, not `turns`.
    const key = issue.keys[0];
    const field = key === undefined ? where : [...issue.path, key].join(".");
    return invalidInput(field, `${where}: unknown field ${JSON.stringify(field)}`);
  }
  const field = issue.path.length > 0 ? issue.path.join(".") : where;
  return invalidInput(field, `${field}: ${issue.message}`);
}

/** Validate a value against a schema, or throw a 400 naming the field. */
export function check<S extends z.ZodType>(schema: S, value: unknown, where: string): z.output<S> {
  const parsed = schema.safeParse(value, WITHOUT_JIT);
  if (!parsed.success) throw fromZod(parsed.error, where);
  return parsed.data;
}

const isJson = (type: string | undefined) => type !== undefined && /^application\/json\s*(;|$)/i.test(type);

/**
 * Read a JSON body and validate it. JSON only, even for an empty body: a
 * browser cannot send that cross-site without a preflight (which this API
 * never grants), so a web page cannot start or approve runs on a local server.
 * An empty body counts as `{}`, for routes whose fields are all optional.
 */
export async function readBody<S extends z.ZodType>(c: Context, schema: S): Promise<z.output<S>> {
  if (!isJson(c.req.header("content-type"))) {
    throw new HttpError(
      415,
      "unsupported_media_type",
      "send the body as JSON with Content-Type: application/json",
    );
  }
  const text = await c.req.text();
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

/** Validate the query string (every parameter must be known). */
export function readQuery<S extends z.ZodType>(c: Context, schema: S): z.output<S> {
  return check(schema, c.req.query(), "query");
}

/** The run id in the path, refused (400) when it could escape a key or a path. */
export function runIdParam(c: Context): string {
  try {
    return validateRunId(c.req.param("id") ?? "");
  } catch (error) {
    throw invalidInput("runId", (error as Error).message);
  }
}

/** The tool call id in the path. */
export function callIdParam(c: Context): string {
  return check(CallId, c.req.param("callId"), "callId");
}
