/**
 * Issue 31: a plain local run (openLocal on SQLite, a scripted model, one tool, ten turns) loads
 * no AWS SDK, no HTTP framework, no CDK, no MCP SDK and no third-party state-machine interpreter or
 * validator.
 * Checked on the modules a fresh Node actually loads (a `load` hook), not on the time they take.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { LOAD_HOOK, ownModulesOf, packagesOf } from "../../support/loadedModules.ts";

const ROOT = join(import.meta.dirname, "..", "..", "..");
const FORBIDDEN = [
  "@aws-sdk/",
  "@smithy/",
  "hono",
  "@hono/",
  "aws-cdk-lib",
  "constructs",
  "aws-local-stepfunctions",
  "asl-validator",
  "ajv",
  // An agent without MCP servers never loads the MCP SDK (lib/runtime/mcp.ts loads it on first use).
  "@modelcontextprotocol/",
];

const dir = mkdtempSync(join(tmpdir(), "runlog-module-graph-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The npm packages a fresh process loads to run a 10-turn run to completion, and the run's status. */
function packagesOfALocalRun(): { status: string; packages: string[]; runlogModules: number } {
  const turns = [
    ...Array.from({ length: 9 }, (_, k) => ({ toolCalls: [{ name: "fetch_page", arguments: { page: k } }] })),
    { text: "done", stop: "stop" },
  ];
  const script = join(dir, "script.json");
  writeFileSync(script, JSON.stringify({ turns }));
  const lib = pathToFileURL(join(ROOT, "lib/index.ts")).href;
  const code = `${LOAD_HOOK}
    const { openLocal, defineTool } = await import(${JSON.stringify(lib)});
    const { z } = await import("zod");
    const fetchPage = defineTool({
      name: "fetch_page",
      description: "Fetch one page.",
      parameters: z.object({ page: z.number() }),
      run: ({ page }) => "page " + page,
    });
    const agents = {
      reader: () => ({ name: "reader", instructions: "Read.", tools: [fetchPage], defaultModel: ${JSON.stringify(`scripted:${script}`)} }),
    };
    const local = await openLocal({ dataDir: ${JSON.stringify(join(dir, "data"))}, agents });
    const outcome = await local.runlog.start({ agent: "reader", input: "read", runId: "graph-run" });
    process.stdout.write(JSON.stringify({ status: outcome.status, loaded: [...loaded] }));
    process.exit(0);
  `;
  const run = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", code], {
    cwd: ROOT,
    encoding: "utf8",
  });
  if (run.status !== 0) throw new Error(`the child failed (${run.status}): ${run.stderr}`);
  const { status, loaded } = JSON.parse(run.stdout) as { status: string; loaded: string[] };
  const runlogModules = ownModulesOf(loaded, `${pathToFileURL(ROOT).href}/`).filter((m) =>
    m.startsWith("lib/"),
  );
  return { status, packages: packagesOf(loaded), runlogModules: runlogModules.length };
}

describe("the module graph of a plain local run", () => {
  it("holds no AWS SDK, HTTP framework, CDK, or third-party ASL interpreter", () => {
    const { status, packages, runlogModules } = packagesOfALocalRun();
    expect(status).toBe("completed");
    // The hook saw the run's own modules and its packages: an empty list would prove nothing.
    expect(runlogModules).toBeGreaterThan(20);
    expect(packages).toContain("zod");
    const forbidden = packages.filter((p) =>
      FORBIDDEN.some((f) => (f.endsWith("/") ? p.startsWith(f) : p === f)),
    );
    expect(forbidden).toEqual([]);
  }, 60_000);
});
