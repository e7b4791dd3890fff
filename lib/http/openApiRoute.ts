import { openApiDocument } from "./openapi.ts";
import type { RouteTable } from "./routes.ts";

/** GET /openapi.json: the API's OpenAPI document, built once per app. */
export function openApiRoutes(): RouteTable {
  let document: ReturnType<typeof openApiDocument> | undefined;
  return {
    "/openapi.json": {
      GET: async (c) => {
        document ??= openApiDocument();
        return c.json(document);
      },
    },
  };
}
