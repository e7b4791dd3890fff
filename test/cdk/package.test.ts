import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { App, Stack } from "aws-cdk-lib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type * as RunlogCdk from "../../cdk/index.ts";
import { bundleOf, HANDLERS, localOnlySources, type Synthesized } from "./synth.ts";

const REPO = join(import.meta.dirname, "..", "..");
/** A tool name found nowhere in runlog: in a bundle, it can only have come from the user's module. */
const TOOL = "lookup_invoice_in_user_project";

/**
 * A user's project in another directory tree, as `npm install <runlog tarball>`
 * leaves it: runlog a real copy (package.json and dist/, which the test setup
 * builds), its dependencies and peers beside it, a lockfile, and the user's own
 * agents module importing runlog by its package name.
 */
function userProject(): string {
  if (!existsSync(join(REPO, "dist", "cdk", "index.js"))) {
    throw new Error("no dist/: `npm run build` first (vitest's global setup does)");
  }
  const project = mkdtempSync(join(tmpdir(), "runlog-user-project-"));
  const modules = join(project, "node_modules");
  const runlog = join(modules, "runlog");
  mkdirSync(runlog, { recursive: true });
  cpSync(join(REPO, "package.json"), join(runlog, "package.json"));
  cpSync(join(REPO, "dist"), join(runlog, "dist"), {
    recursive: true,
    filter: (source) => !source.endsWith(".tsbuildinfo"),
  });
  // runlog's own dependencies (the SDKs, openai, hono), and the peers and tools a user installs.
  symlinkSync(join(REPO, "node_modules"), join(runlog, "node_modules"));
  for (const name of ["zod", "aws-cdk-lib", "constructs", "esbuild"]) {
    symlinkSync(join(REPO, "node_modules", name), join(modules, name));
  }
  mkdirSync(join(modules, ".bin"));
  symlinkSync(join("..", "esbuild", "bin", "esbuild"), join(modules, ".bin", "esbuild"));
  writeFileSync(
    join(project, "package.json"),
    JSON.stringify({ name: "user-app", private: true, type: "module", dependencies: { runlog: "*" } }),
  );
  writeFileSync(
    join(project, "package-lock.json"),
    JSON.stringify({
      name: "user-app",
      lockfileVersion: 3,
      requires: true,
      packages: { "": { name: "user-app" } },
    }),
  );
  mkdirSync(join(project, "src"));
  writeFileSync(
    join(project, "src", "agents.ts"),
    `import { type AgentFactory, defineTool } from "runlog";
import * as z from "zod";

export const agents: Record<string, AgentFactory> = {
  billing: () => ({
    name: "billing",
    instructions: "Answer questions about invoices.",
    tools: [
      defineTool({
        name: "${TOOL}",
        description: "Find an invoice by its number.",
        parameters: z.object({ number: z.string() }),
        run: ({ number }) => \`invoice \${number}: paid\`,
      }),
    ],
  }),
};
`,
  );
  return project;
}

let project: string;
let outdir: string;
let s: Synthesized;

beforeAll(async () => {
  project = userProject();
  outdir = join(project, "cdk.out");
  // The construct as the user imports it: compiled, from the copy in their node_modules.
  const entry = join(project, "node_modules", "runlog", "dist", "cdk", "index.js");
  const { Runlog } = (await import(pathToFileURL(entry).href)) as typeof RunlogCdk;
  const app = new App({ outdir });
  const stack = new Stack(app, "UserStack", { env: { account: "123456789012", region: "us-east-1" } });
  // Relative to the working directory, as a user's cdk.json app would run from their project.
  const cwd = process.cwd();
  process.chdir(project);
  let runlog: RunlogCdk.Runlog;
  try {
    runlog = new Runlog(stack, "Agents", { agentsModule: "src/agents.ts" });
    app.synth();
  } finally {
    process.chdir(cwd);
  }
  const { Template } = await import("aws-cdk-lib/assertions");
  const template = Template.fromStack(stack);
  const functionIds = Object.fromEntries(
    Object.entries(runlog.functions).map(([name, fn]) => [
      name,
      stack.getLogicalId(fn.node.defaultChild as never),
    ]),
  ) as Synthesized["functionIds"];
  s = { stack, runlog, template, functionIds, logicalId: () => "" };
}, 240_000);
afterAll(() => rmSync(project, { recursive: true, force: true }));

describe("runlog installed in a user's project, with their own agents", () => {
  // The lifecycle publisher runs no agent: it reads the log and puts events on the bus.
  const RUNNING_AGENTS = HANDLERS.filter((handler) => handler !== "publishLifecycle");

  it("publishLifecycle bundles no agents, neither the user's nor runlog's", () => {
    const { code, sources } = bundleOf(s, outdir, "publishLifecycle");
    expect(code).not.toContain(TOOL);
    expect(sources.some((source) => source.endsWith("src/agents.ts"))).toBe(false);
    expect(sources.some((source) => source.includes("functions/agents."))).toBe(false);
  });

  it.each(RUNNING_AGENTS)("%s bundles the user's agents from runlog's compiled functions", (handler) => {
    const { code, sources } = bundleOf(s, outdir, handler);
    expect(code).toContain(TOOL);
    expect(sources.some((source) => source.endsWith("src/agents.ts"))).toBe(true);
    expect(
      sources.some((source) => source.includes(`node_modules/runlog/dist/functions/${handler}.js`)),
    ).toBe(true);
    // Not runlog's demo agents in place of the user's.
    expect(sources.some((source) => source.includes("functions/agents."))).toBe(false);
  });

  // `runlog` also exports the local runtime (openLocal): only package.json's "sideEffects" lets esbuild leave it out.
  it.each(HANDLERS)(
    "%s holds nothing only the local runtime needs, though the agents import `runlog`",
    (handler) => {
      const { sources } = bundleOf(s, outdir, handler);
      expect(localOnlySources(sources)).toEqual([]);
    },
  );
});
