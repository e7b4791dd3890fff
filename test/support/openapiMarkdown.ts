// The HTTP API's reference page, written from the OpenAPI document (`npm run openapi` writes both);
// test/http/openapi.test.ts fails when the committed page and the document disagree.

/** The parts of a JSON Schema (as z.toJSONSchema writes them) the page describes. */
interface Schema {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  minItems?: number;
  maxItems?: number;
  description?: string;
}

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema: Schema;
}

interface Operation {
  operationId: string;
  summary?: string;
  description?: string;
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, { $ref?: string; description?: string; content?: Record<string, unknown> }>;
  security?: Record<string, unknown>[];
}

export interface OpenApiDocument {
  info: { title: string; version: string; description?: string };
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
}

const METHODS = ["get", "post", "put", "patch", "delete"];
/** JSON Schema's "any safe integer" bound, which says nothing to a reader. */
const UNBOUNDED = Number.MAX_SAFE_INTEGER;

const cell = (text: string) => text.replaceAll("|", "\\|").replaceAll("\n", " ");
const refName = (ref: string) => ref.slice(ref.lastIndexOf("/") + 1);
const anchor = (name: string) => name.toLowerCase().replace(/[^a-z0-9]+/g, "-");

/** A schema's type in a few words: `string`, `"a" \| "b"`, `array of string`, a link to a named schema. */
function typeOf(schema: Schema): string {
  if (schema.$ref) return `[${refName(schema.$ref)}](#${anchor(refName(schema.$ref))})`;
  if (schema.const !== undefined) return `\`${JSON.stringify(schema.const)}\``;
  if (schema.enum) return schema.enum.map((value) => `\`${JSON.stringify(value)}\``).join(" or ");
  const union = schema.anyOf ?? schema.oneOf;
  if (union) return union.map(typeOf).join(" or ");
  if (schema.type === "array") return `array of ${schema.items ? typeOf(schema.items) : "any"}`;
  if (schema.type === "object" && !schema.properties && typeof schema.additionalProperties === "object") {
    return `object of ${typeOf(schema.additionalProperties)}`;
  }
  return [schema.type ?? "any"].flat().join(" or ");
}

/** Its bounds in words: `1–128 characters`, `at least 1`, `matches ^…$`. */
function boundsOf(schema: Schema): string {
  const bounds: string[] = [];
  const range = (low: number | undefined, high: number | undefined, unit: string) => {
    const top = high === UNBOUNDED ? undefined : high;
    const bottom = low === -UNBOUNDED ? undefined : low;
    if (bottom !== undefined && top !== undefined) bounds.push(`${bottom}–${top}${unit}`);
    else if (bottom !== undefined) bounds.push(`at least ${bottom}${unit}`);
    else if (top !== undefined) bounds.push(`at most ${top}${unit}`);
  };
  range(schema.minLength, schema.maxLength, " characters");
  range(schema.minimum, schema.maximum, "");
  range(schema.minItems, schema.maxItems, " items");
  if (schema.exclusiveMinimum !== undefined) bounds.push(`over ${schema.exclusiveMinimum}`);
  if (schema.pattern) bounds.push(`matches \`${schema.pattern}\``);
  if (schema.description) bounds.push(schema.description);
  return bounds.join("; ");
}

/** An object's fields as table rows, nested objects flattened with dots (`limits.maxTurns`). */
function fieldRows(schema: Schema, prefix = ""): string[] {
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties ?? {}).flatMap(([name, field]) => {
    const path = `${prefix}${name}`;
    const row = `| \`${path}\` | ${cell(typeOf(field))} | ${required.has(name) ? "yes" : ""} | ${cell(boundsOf(field))} |`;
    return field.type === "object" && field.properties ? [row, ...fieldRows(field, `${path}.`)] : [row];
  });
}

const FIELD_HEAD = ["| field | type | required | limits |", "| --- | --- | --- | --- |"];

function operationLines(method: string, path: string, operation: Operation): string[] {
  const lines = [`### \`${method.toUpperCase()} ${path}\``, ""];
  if (operation.summary) lines.push(`${operation.summary} (\`${operation.operationId}\`).`, "");
  if (operation.description) lines.push(operation.description, "");
  if (operation.security?.length === 0) lines.push("No authentication.", "");
  const parameters = operation.parameters ?? [];
  if (parameters.length > 0) {
    lines.push("| parameter | in | type | required | limits |", "| --- | --- | --- | --- | --- |");
    for (const parameter of parameters) {
      const about = [boundsOf(parameter.schema), parameter.description ?? ""].filter(Boolean).join("; ");
      lines.push(
        `| \`${parameter.name}\` | ${parameter.in} | ${cell(typeOf(parameter.schema))} | ${parameter.required ? "yes" : ""} | ${cell(about)} |`,
      );
    }
    lines.push("");
  }
  const body = operation.requestBody?.content["application/json"]?.schema;
  if (body) lines.push(`Body: ${typeOf(body)} (JSON).`, "");
  lines.push("| status | answer |", "| --- | --- |");
  const errors: string[] = [];
  for (const [status, response] of Object.entries(operation.responses)) {
    if (response.$ref) errors.push(status);
    else lines.push(`| ${status} | ${cell(response.description ?? "")} |`);
  }
  if (errors.length > 0) lines.push(`| ${errors.join(", ")} | an [Error](#error) body |`);
  return [...lines, ""];
}

/** The page: every operation (path, parameters, body, answers), then every named schema's fields. */
export function openApiMarkdown(doc: OpenApiDocument): string {
  const lines = [
    `# HTTP API routes (${doc.info.title} ${doc.info.version})`,
    "",
    "<!-- Generated from openapi.json by `npm run openapi`: edit lib/http/routeSpecs.ts and the schemas, not this page. -->",
    "",
    "Every route of the [OpenAPI document](openapi.json), as the app serves it; what the routes mean,",
    "how they are authenticated and how errors read: [HTTP API reference](http-api.md).",
    "",
    "## Routes",
    "",
  ];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (operation) lines.push(...operationLines(method, path, operation));
    }
  }
  lines.push("## Schemas", "");
  for (const [name, schema] of Object.entries(doc.components.schemas)) {
    lines.push(`### ${name}`, "");
    if (schema.properties) lines.push(...FIELD_HEAD, ...fieldRows(schema), "");
    else lines.push(`${typeOf(schema)}${boundsOf(schema) ? ` (${boundsOf(schema)})` : ""}.`, "");
  }
  return `${lines.join("\n").trimEnd()}\n`;
}
