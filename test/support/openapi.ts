// Writes docs/reference/openapi.json from the app's route specs (`npm run openapi`);
// test/http/openapi.test.ts fails when the committed copy and the app disagree.
import { writeFileSync } from "node:fs";
import { openApiDocument } from "../../lib/http/openapi.ts";

export const OPENAPI_FILE = new URL("../../docs/reference/openapi.json", import.meta.url);

/** The document as committed: two-space JSON and a final newline. */
export const openApiText = (): string => `${JSON.stringify(openApiDocument(), null, 2)}\n`;

if (import.meta.url === `file://${process.argv[1]}`) {
  writeFileSync(OPENAPI_FILE, openApiText());
  process.stdout.write(`wrote ${OPENAPI_FILE.pathname}\n`);
}
