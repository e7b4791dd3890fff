// Writes docs/reference/openapi.json from the app's route specs, and the routes' reference page
// from it (`npm run openapi`); test/http/openapi.test.ts fails when a committed copy and the app disagree.
import { writeFileSync } from "node:fs";
import { openApiDocument } from "../../lib/http/openapi.ts";
import { type OpenApiDocument, openApiMarkdown } from "./openapiMarkdown.ts";

export const OPENAPI_FILE = new URL("../../docs/reference/openapi.json", import.meta.url);
export const ROUTES_PAGE = new URL("../../docs/reference/http-routes.md", import.meta.url);

/** The document as committed: two-space JSON and a final newline. */
export const openApiText = (): string => `${JSON.stringify(openApiDocument(), null, 2)}\n`;

/** The routes' reference page, from the document as committed (JSON: what a reader of the file gets). */
export const routesPageText = (): string => openApiMarkdown(JSON.parse(openApiText()) as OpenApiDocument);

if (import.meta.url === `file://${process.argv[1]}`) {
  writeFileSync(OPENAPI_FILE, openApiText());
  writeFileSync(ROUTES_PAGE, routesPageText());
  process.stdout.write(`wrote ${OPENAPI_FILE.pathname} and ${ROUTES_PAGE.pathname}\n`);
}
