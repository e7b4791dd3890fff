import { defineConfig } from "vitest/config";

// The crash tests start real `runlog` processes (each a cold start, its MCP server too): give them time.
export default defineConfig({ test: { include: ["test/**/*.test.ts"], testTimeout: 60_000 } });
