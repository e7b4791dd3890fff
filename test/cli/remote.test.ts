import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type CliResult,
  cleanup,
  ROOT,
  runlog,
  script,
  spawnNode,
  storeEnv,
  tempDataDir,
  testEnv,
} from "../support/cli.ts";
import { type Served, serve, stopServed } from "../support/serve.ts";

// The CLI as a client of runlog's HTTP API (`--url`): every command against `runlog serve`, and the
// same data read afterwards from the data dir by the CLI itself, which must print the same.
const dir = tempDataDir("cli-remote");
let served: Served;
beforeAll(async () => {
  served = await serve(["--dir", dir, "--allow-scripted"], testEnv(storeEnv(dir)));
});
afterAll(async () => {
  stopServed(served);
  await cleanup(dir);
});

const BIN = join(ROOT, "bin", "runlog.js");
/** `runlog ARGS --url URL` (no data dir: the API's runs), with the server's token unless `env` says otherwise. */
const remote = (args: string[], env: Record<string, string> = { RUNLOG_TOKEN: served.token }) =>
  spawnNode([BIN, ...args, "--url", served.url], { env: testEnv(env) });
const parsed = (result: CliResult) => {
  try {
    return JSON.parse(result.stdout) as Record<string, unknown>;
  } catch {
    throw new Error(`no JSON (exit ${result.code}):\n${result.stdout}\n${result.stderr}`);
  }
};

const EMAIL = { name: "send_email", arguments: { to: "ana@example.com", subject: "Lunch" } };
const captured: Record<string, string> = {};

describe("runlog --url: the CLI through the HTTP API", () => {
  it("runs, lists, shows and steers runs as it does on a store, with the same exit codes", async () => {
    const done = script(dir, "done", [
      { text: "All done", stop: "stop" },
      { text: "Again", stop: "stop" },
    ]);
    const ran = await remote(["run", "--run-id", "plain", "--model", done, "hello", "--json"]);
    expect(ran.code, ran.stderr).toBe(0);
    expect(parsed(ran)).toEqual({ runId: "plain", status: "completed", output: "All done" });
    // Progress lines go to stderr with --json, as they do locally.
    expect(ran.stderr).toContain("plain  #  1  run started");

    const approval = script(dir, "approval", [{ toolCalls: [EMAIL] }, { text: "Sent", stop: "stop" }]);
    const paused = await remote(["run", "--run-id", "mail", "--model", approval, "email Ana", "--json"]);
    expect(paused.code, paused.stderr).toBe(3);
    expect(parsed(paused)).toMatchObject({ runId: "mail", status: "paused" });
    // Resuming a paused run resumes nothing: exit 3 and the reason in words, as locally.
    const stuck = await remote(["resume", "mail"]);
    expect(stuck.code).toBe(3);
    expect(stuck.stdout).toContain("nothing to resume: waiting for a decision on send_email (call_0_0)");
    const point = await remote(["resume-point", "mail", "--json"]);
    expect(parsed(point)).toMatchObject({ resumable: false, reason: "awaiting_approval" });

    const approved = await remote(["approve", "mail", "call_0_0", "--by", "ops", "--json"]);
    expect(approved.code, approved.stderr).toBe(0);
    expect(parsed(approved)).toEqual({ runId: "mail", status: "completed", output: "Sent" });

    const sent = await remote(["send", "plain", "and again", "--idempotency-key", "k-1", "--json"]);
    expect(sent.code, sent.stderr).toBe(0);
    expect(parsed(sent)).toMatchObject({ runId: "plain", status: "completed" });

    const forked = await remote(["fork", "plain", "--at", "2", "--id", "plain-fork"]);
    expect(forked.code, forked.stderr).toBe(0);
    expect(forked.stdout).toContain("forked plain into plain-fork");

    const completed = await remote(["resume", "plain", "--json"]);
    expect(completed.code).toBe(0);
    expect(parsed(completed)).toMatchObject({ runId: "plain", resumed: false, reason: "completed" });

    for (const [name, args] of Object.entries({
      ls: ["ls", "--json"],
      completedLs: ["ls", "--status", "completed", "--json"],
      forks: ["ls", "--forks-of", "plain", "--json"],
      show: ["show", "mail", "--json"],
      human: ["show", "plain"],
      point: ["resume-point", "mail", "--json"],
    })) {
      const result = await remote(args);
      expect(result.code, result.stderr).toBe(0);
      captured[name] = result.stdout;
    }
    expect(parsed({ ...ran, stdout: captured.ls! }).runs).toHaveLength(3);
  });

  it("refuses what cannot go to an API, and a wrong token, naming it", async () => {
    const both = await spawnNode([BIN, "ls", "--url", served.url, "--dir", dir], { env: testEnv() });
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("--dir names where this process keeps");
    const sweep = await remote(["sweep"]);
    expect(sweep.code).toBe(2);
    expect(sweep.stderr).toContain("sweep runs where the runs are executed");
    const wrong = await remote(["ls"], { RUNLOG_TOKEN: "not-the-token" });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/runlog: .*token/i);
    const missing = await remote(["show", "no-such-run"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("no-such-run");
    const token = await runlog(dir, ["ls", "--token", "x"]);
    expect(token.code).toBe(2);
    expect(token.stderr).toContain("--token is for an API named by --url");
  });

  it("prints what the CLI prints on the same data from the data dir", async () => {
    stopServed(served);
    await served.exit;
    const local = async (args: string[]) => {
      const result = await runlog(dir, args);
      expect(result.code, result.stderr).toBe(0);
      return result.stdout;
    };
    expect(captured.ls).toBe(await local(["ls", "--json"]));
    expect(captured.completedLs).toBe(await local(["ls", "--status", "completed", "--json"]));
    expect(captured.forks).toBe(await local(["ls", "--forks-of", "plain", "--json"]));
    expect(captured.show).toBe(await local(["show", "mail", "--json"]));
    expect(captured.human).toBe(await local(["show", "plain"]));
    expect(captured.point).toBe(await local(["resume-point", "mail", "--json"]));
  });
});
