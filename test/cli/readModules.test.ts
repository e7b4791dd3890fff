/**
 * Issue 27: the CLI's read commands (`ls`, `show`, `resume-point`, `events`) open the store they
 * read and nothing else: no state-machine interpreter, orchestrator, model adapter or lifecycle
 * delivery loads, and no zod (the configuration is read without it, and the built-in agents, whose
 * tools are declared with it, load only when a resume plan needs a tool's flags). Checked on the
 * modules a fresh Node actually loads (a `load` hook), not on time.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openLocal } from "../../lib/api/local.ts";
import { killedMidWait } from "../support/cli.ts";
import { LOAD_HOOK, ownModulesOf, packagesOf } from "../support/loadedModules.ts";

const ROOT = join(import.meta.dirname, "..", "..");
/** runlog's own modules a read must not load: what runs a run, not what reads one. */
const RUNNING = [
  "lib/runtime/local/asl/",
  "lib/runtime/local/orchestrator.ts",
  "lib/runtime/local/localRuntime.ts",
  "lib/runtime/lifecycleDelivery.ts",
  "lib/runtime/models.ts",
  "lib/adapters/openai/",
  "lib/adapters/bedrock/",
  "lib/adapters/scripted/",
  "lib/steps/generation/",
  "lib/api/local.ts",
];

const dir = mkdtempSync(join(tmpdir(), "runlog-read-modules-"));
const dataDir = join(dir, "data");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

beforeAll(async () => {
  const script = join(dir, "script.json");
  writeFileSync(script, JSON.stringify({ turns: [{ text: "stored answer", stop: "stop" }] }));
  const agents = {
    reader: () => ({ name: "reader", instructions: "Read.", tools: [], defaultModel: `scripted:${script}` }),
  };
  const local = await openLocal({ dataDir, agents });
  try {
    await local.runlog.start({ agent: "reader", input: "read", runId: "read-run" });
  } finally {
    await local.close();
  }
  // A run of the built-in demo agent killed inside its `wait` call (an idempotent tool).
  await killedMidWait(dataDir, "killed-in-wait");
}, 60_000);

interface Read {
  code: number;
  stdout: string;
  /** runlog's own modules the process loaded, relative to the repository. */
  modules: string[];
  /** The npm packages it loaded. */
  packages: string[];
}

/** What one CLI command printed, and which of runlog's own modules and of npm's its fresh process loaded. */
function readCommand(...argv: string[]): Read {
  const main = pathToFileURL(join(ROOT, "lib/cli/main.ts")).href;
  const code = `${LOAD_HOOK}
    const { main } = await import(${JSON.stringify(main)});
    const out = [];
    const io = { out: (line) => out.push(line), lines: (lines) => out.push(...lines), err: (line) => out.push(line), json: (value) => out.push(JSON.stringify(value)) };
    const code = await main(${JSON.stringify(argv)}, io, {});
    process.stdout.write(JSON.stringify({ code, stdout: out.join("\\n"), loaded: [...loaded] }));
    process.exit(0);
  `;
  const run = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", code], {
    cwd: ROOT,
    encoding: "utf8",
    env: { ...process.env, RUNLOG_DIR: dataDir, NO_COLOR: "1" },
  });
  if (run.status !== 0) throw new Error(`the child failed (${run.status}): ${run.stderr}`);
  const read = JSON.parse(run.stdout) as { code: number; stdout: string; loaded: string[] };
  return {
    code: read.code,
    stdout: read.stdout,
    modules: ownModulesOf(read.loaded, `${pathToFileURL(ROOT).href}/`),
    packages: packagesOf(read.loaded),
  };
}

describe("the CLI's read commands", () => {
  it.each([
    // Each command with what it prints of the stored run: proof the hook saw a real read.
    { argv: ["ls", "--json"], prints: "read-run" },
    { argv: ["show", "read-run"], prints: "stored answer" },
    { argv: ["resume-point", "read-run"], prints: "final answer" },
  ])(
    "$argv.0 opens the store alone",
    ({ argv, prints }) => {
      const { code, stdout, modules, packages } = readCommand(...argv, "--dir", dataDir);
      expect(code).toBe(0);
      expect(stdout).toContain(prints);
      expect(modules.some((m) => m.startsWith("lib/adapters/sqlite/"))).toBe(true);
      const running = modules.filter((m) => RUNNING.some((r) => m.startsWith(r)));
      expect(running).toEqual([]);
      expect(modules).not.toContain("lib/agents/demo.ts");
      expect(packages).not.toContain("zod");
    },
    60_000,
  );

  it("loads the built-in agents, and zod, when a resume plan needs a tool's flags", () => {
    const { code, stdout, modules, packages } = readCommand(
      "resume-point",
      "killed-in-wait",
      "--json",
      "--dir",
      dataDir,
    );
    expect(code).toBe(0);
    // `wait` is idempotent: only the demo agent's own tool says so.
    expect(JSON.parse(stdout)).toMatchObject({
      kind: "recover_tools",
      rerunToolCalls: [{ name: "wait" }],
      interruptedToolCalls: [],
    });
    expect(modules).toContain("lib/agents/demo.ts");
    expect(packages).toContain("zod");
  }, 60_000);
});
