import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { ListTablesCommand } from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectDynamo } from "../../lib/adapters/dynamodb/connect.ts";
import { COMMANDS } from "../../lib/cli/commandTable.ts";
import { cleanup, ROOT, runlogJson, script, tempDataDir } from "../support/cli.ts";
import { type InProcessDynalite, startDynalite } from "../support/dynalite.ts";
import { cli } from "./support.ts";

// A failure names what the user typed: the flag, not the library's field for it; a flag a command
// does not take, by name, with the command's usage; the agents module an unknown agent needs.

const dir = tempDataDir("cli-flag-errors");
const runlogUrl = pathToFileURL(join(ROOT, "dist", "lib", "index.js")).href;
let agents: string;
let dynalite: InProcessDynalite;

beforeAll(async () => {
  dynalite = await startDynalite();
  const done = script(dir, "done", [{ text: "Done", stop: "stop" }]);
  expect((await runlogJson(dir, ["run", "--run-id", "done", "--model", done, "hi"])).json).toMatchObject({
    status: "completed",
  });
  agents = join(dir, "agents.mjs");
  writeFileSync(
    agents,
    `import { defineAgent } from "${runlogUrl}";
export const agents = { support: defineAgent({ name: "support", instructions: "i", model: "scripted:demo" }) };
`,
  );
});
afterAll(async () => {
  await dynalite.stop();
  await cleanup(dir);
});

const stderrOf = async (args: string[], env: Record<string, string> = {}) => {
  const result = await cli(args, { dir, env });
  return { code: result.code, line: result.stderr.split("\n")[0] ?? "", stderr: result.stderr };
};

describe("an input the library refuses, named by the flag that gave it", () => {
  it("ls --forks-of with --children-of: the two flags, refused together", async () => {
    const { code, line } = await stderrOf(["ls", "--forks-of", "done", "--children-of", "done"]);
    expect(code).toBe(2);
    expect(line).toContain("--forks-of and --children-of");
    expect(line).not.toMatch(/childrenOf|parent|cursor/);
  });

  it("fork --model of a run that rests: --model, not the field", async () => {
    const { code, line } = await stderrOf(["fork", "done", "--model", "scripted:demo"]);
    expect(code).toBe(2);
    expect(line).toMatch(/^runlog: --model: run done at seq \d+ rests/);
  });

  it("fork with model settings that no model would use: the flags given", async () => {
    const one = await stderrOf(["fork", "done", "--temperature", "0.1"]);
    expect(one.code).toBe(2);
    expect(one.line).toMatch(/^runlog: --temperature: the fork of run done/);
    const two = await stderrOf(["fork", "done", "--temperature", "0.1", "--stop", "x"]);
    expect(two.line).toMatch(/^runlog: --temperature, --stop: the fork/);
    expect(two.stderr).not.toContain("modelSettings");
  });

  it("resume with a flag that cannot take effect (the run does not resume) is refused, naming it", async () => {
    const result = await cli(["resume", "done", "--temperature", "0.1", "--max-turns", "3", "--json"], {
      dir,
    });
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stdout)).toMatchObject({ error: { code: "usage" } });
    expect(result.stderr).toMatch(
      /^runlog: resume: --max-turns, --temperature cannot take effect: run done does not resume/,
    );
    // Without such a flag it is still an answer, not an error.
    expect((await cli(["resume", "done"], { dir })).code).toBe(0);
  });
});

describe("a flag a command does not take", () => {
  it("is named, with the command's flags and usage, not Node's advice about positionals", async () => {
    const { code, stderr } = await stderrOf(["show", "done", "--max-turns", "5"]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/^runlog: show takes no --max-turns; it takes no flags of its own \(and --dir/);
    expect(stderr).toContain("runlog show <runId> [--json]");
    expect(stderr).not.toContain("positional");
  });

  it("version --json is a flag version does not take, not an argument", async () => {
    const { code, line } = await stderrOf(["version", "--json"]);
    expect(code).toBe(2);
    expect(line).toBe("runlog: version takes no --json; it takes no flags of its own (and --help)");
  });

  it.each([...Object.keys(COMMANDS), "demo", "replay", "serve"])(
    "%s names an unknown flag",
    async (command) => {
      const { code, line } = await stderrOf([command, "--no-such-flag"]);
      expect(code).toBe(2);
      expect(line).toContain(`${command} takes no --no-such-flag; it takes`);
    },
  );
});

describe("an unknown agent, with the flag that serves it", () => {
  it("run --agents MODULE without --agent: --agent defaults to demo, and the module's agents", async () => {
    const { code, line } = await stderrOf(["run", "--agents", agents, "hi"]);
    expect(code).toBe(2);
    expect(line).toContain('unknown agent "demo"; known agents: support');
    expect(line).toContain("--agent defaults to demo");
  });

  it("resume of a run of the user's own agent, without --agents: names --agents", async () => {
    const crashed = await cli(["run", "--agents", agents, "--agent", "support", "--run-id", "own", "x"], {
      dir,
      env: { RUNLOG_CRASH_AT: "model:after-append" },
    });
    expect(crashed.code, crashed.stderr).toBe(137);
    const { code, line } = await stderrOf(["resume", "own"]);
    expect(code).toBe(2);
    expect(line).toContain('unknown agent "support"');
    expect(line).toContain("--agents MODULE");
    expect((await cli(["resume", "own", "--agents", agents], { dir })).code).toBe(0);
  });
});

describe("a model that cannot be built here", () => {
  it("run, and resume with it, exit 2 naming what is missing, with nothing written", async () => {
    const env = { OPENAI_API_KEY: "" };
    const run = await cli(["run", "--run-id", "keyless", "--model", "openai:gpt-4.1", "hi"], { dir, env });
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain("set OPENAI_API_KEY");
    const shown = await cli(["show", "keyless"], { dir });
    expect(shown.code).toBe(2);
    expect(shown.stderr).toContain("run keyless not found");
  });
});

describe("where the runs are, as messages say it", () => {
  it("ls on an empty DynamoDB table names the table and the endpoint, not the data dir never read", async () => {
    const made = await connectDynamo({ endpoint: dynalite.endpoint, tableName: "other" });
    made.client.destroy();
    const result = await cli(["ls"], {
      dir,
      env: { RUNLOG_DYNAMODB_ENDPOINT: dynalite.endpoint, RUNLOG_TABLE: "other" },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`no runs in DynamoDB at ${dynalite.endpoint}, table other`);
    expect(result.stdout).not.toContain(dir);
  });

  it("a read of a table that is not there says so and leaves it not there: reading never makes a table", async () => {
    const env = { RUNLOG_DYNAMODB_ENDPOINT: dynalite.endpoint, RUNLOG_TABLE: "typo-table" };
    for (const args of [["ls"], ["show", "r1"], ["resume-point", "r1"]]) {
      const result = await cli(args, { dir, env });
      expect(result.code, args.join(" ")).toBe(1);
      expect(result.stderr, args.join(" ")).toContain("table typo-table does not exist");
    }
    const { client } = await connectDynamo(
      { endpoint: dynalite.endpoint, tableName: "x" },
      { createTable: false },
    );
    const { TableNames } = await client.send(new ListTablesCommand({}));
    client.destroy();
    expect(TableNames).not.toContain("typo-table");
  });
});
