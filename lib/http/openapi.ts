import * as z from "zod";
import { JsonValueSchema, MAX_JSON_DEPTH } from "../core/metadata.ts";
import { ErrorBodySchema, ROUTE_SPECS, type RouteSpec } from "./routeSpecs.ts";
import { IdempotencyKey } from "./schemas.ts";

/** `/runs/:id` (hono) as `/runs/{id}` (OpenAPI). */
export const openApiPath = (path: string): string => path.replace(/:(\w+)/g, "{$1}");

type Json = Record<string, unknown>;

/** The version of the HTTP API (not of the package): it changes when a route changes incompatibly. */
export const API_VERSION = "1.0.0";

/** The OpenAPI 3.1 document of the HTTP API, generated from ROUTE_SPECS and the schemas in it. */
export function openApiDocument(): Json {
  const registry = z.registry<{ id: string }>();
  registry.add(ErrorBodySchema, { id: "Error" });
  // Recursive: named, so it is a component of its own rather than zod's anonymous __shared one.
  // The name goes on the recursive schema behind the shape check (core/metadata.ts).
  registry.add(JsonValueSchema.out, { id: "JsonValue" });
  const named = new Map<z.ZodType, string>([[ErrorBodySchema, "Error"]]);
  for (const methods of Object.values(ROUTE_SPECS)) {
    for (const spec of Object.values(methods)) {
      if (spec.body && !named.has(spec.body)) {
        const id = `${spec.operationId[0]?.toUpperCase()}${spec.operationId.slice(1)}Body`;
        registry.add(spec.body, { id });
        named.set(spec.body, id);
      }
    }
  }
  const components = z.toJSONSchema(registry, {
    target: "draft-2020-12",
    io: "input",
    unrepresentable: "any",
    uri: (id) => `#/components/schemas/${id}`,
  }).schemas;
  for (const schema of Object.values(components)) {
    delete (schema as Json).$schema;
    delete (schema as Json).$id;
  }
  // What the shape check refuses, which JSON Schema has no keyword for.
  (components.JsonValue as Json).description =
    `any JSON value; arrays and objects nested at most ${MAX_JSON_DEPTH} levels deep, the value itself counting as one; no object key "__proto__"`;
  const schemaOf = (schema: z.ZodType): Json => {
    const id = named.get(schema);
    if (id !== undefined) return { $ref: `#/components/schemas/${id}` };
    const json = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Json;
    delete json.$schema;
    return json;
  };
  const paths: Record<string, Json> = {};
  for (const [path, methods] of Object.entries(ROUTE_SPECS)) {
    const item: Json = {};
    for (const [method, spec] of Object.entries(methods)) {
      item[method.toLowerCase()] = operation(path, method, spec, schemaOf);
    }
    paths[openApiPath(path)] = item;
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "runlog HTTP API",
      license: { name: "Apache-2.0", identifier: "Apache-2.0" },
      version: API_VERSION,
      description:
        "Durable, resumable AI-agent runs. Generated from the zod schemas the routes validate with (lib/http/openapi.ts).",
    },
    servers: [
      { url: "/", description: "The API's base URL: `runlog serve`'s address or the deployed stage URL" },
    ],
    security: [{ sigv4: [] }, { bearer: [] }],
    paths,
    components: {
      schemas: components,
      securitySchemes: {
        sigv4: {
          type: "apiKey",
          in: "header",
          name: "Authorization",
          description:
            "AWS Signature Version 4 (service execute-api), as API Gateway's IAM authorization checks it.",
          "x-amazon-apigateway-authtype": "awsSigv4",
        },
        bearer: {
          type: "http",
          scheme: "bearer",
          description: "A JWT (an API Gateway JWT authorizer) or the token `runlog serve` prints.",
        },
      },
      responses: {
        Error: {
          description: "An error: `code` says which, `field` names bad input",
          content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
        },
      },
    },
  };
}

function operation(path: string, method: string, spec: RouteSpec, schemaOf: (s: z.ZodType) => Json): Json {
  const parameters: Json[] = [];
  for (const [name, schema] of Object.entries(spec.params ?? {})) {
    parameters.push({ name, in: "path", required: true, schema: schemaOf(schema) });
  }
  for (const [name, schema] of Object.entries(spec.query?.shape ?? {})) {
    const optional = (schema as z.ZodType).safeParse(undefined).success;
    parameters.push({ name, in: "query", required: !optional, schema: schemaOf(schema as z.ZodType) });
  }
  if (spec.idempotent) {
    parameters.push({
      name: "Idempotency-Key",
      in: "header",
      required: false,
      description:
        "The same key with the same request again does nothing more and answers as the first did; with a different request it is 409 idempotency_key_reused.",
      schema: schemaOf(IdempotencyKey),
    });
  }
  if (spec.stream) {
    parameters.push({
      name: "Last-Event-ID",
      in: "header",
      required: false,
      description: spec.stream.means,
      schema: schemaOf(spec.stream.lastEventId),
    });
  }
  const responses: Json = {};
  for (const [status, description] of Object.entries(spec.ok)) {
    responses[status] = {
      description,
      ...(spec.location === undefined
        ? {}
        : {
            headers: {
              Location: { description: spec.location, schema: { type: "string", format: "uri-reference" } },
            },
          }),
      content: spec.stream
        ? { "text/event-stream": { schema: { type: "string" } } }
        : { "application/json": { schema: { type: "object" } } },
    };
  }
  // `runlog serve`'s lock (localAuth.ts): a GET with `?token=TOKEN` sets the token cookie and is
  // sent on to the same URL without it, so the token leaves the address bar.
  if (method === "GET" && !spec.public) {
    responses["303"] = {
      description:
        "`runlog serve` only: the request carried `?token=TOKEN` (the URL it prints); the answer sets the `runlog_token` cookie and sends the caller to the same URL without the token",
      headers: {
        Location: {
          description: "The same URL without `token`",
          schema: { type: "string", format: "uri-reference" },
        },
        "Set-Cookie": {
          description: "`runlog_token`, HttpOnly, SameSite=Strict",
          schema: { type: "string" },
        },
      },
    };
  }
  for (const status of errorStatuses(path, spec)) {
    responses[status] = { $ref: "#/components/responses/Error" };
  }
  responses["5XX"] = { $ref: "#/components/responses/Error" };
  return {
    operationId: spec.operationId,
    summary: spec.summary,
    ...(spec.public ? { security: [] } : {}),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(spec.body
      ? {
          requestBody: {
            required: true,
            content: { "application/json": { schema: schemaOf(spec.body) } },
          },
        }
      : {}),
    responses,
  };
}

/** The 4xx statuses a route answers: those its inputs imply, then its own. */
function errorStatuses(path: string, spec: RouteSpec): number[] {
  const statuses = new Set<number>();
  if (spec.params || spec.query || spec.body) statuses.add(400);
  if (!spec.public) statuses.add(401);
  // `runlog serve` refuses a request to another host name (forbidden_host) on every route, and a
  // state-changing one from another origin (forbidden_origin).
  statuses.add(403);
  if (path.includes(":id")) statuses.add(404);
  statuses.add(405);
  if (spec.body) {
    statuses.add(413);
    statuses.add(415);
  }
  for (const status of spec.errors ?? []) statuses.add(status);
  return [...statuses].sort((a, b) => a - b);
}
