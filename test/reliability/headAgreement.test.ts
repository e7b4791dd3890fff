import { afterAll, describe, expect, it } from "vitest";
import type { Runlog } from "../../lib/api/runlog.ts";
import { cleanup, library, runlog, script, tempDataDir } from "../support/cli.ts";
import { tally } from "./support/tally.ts";

/**
 * `runlog ls` reads run-heads, not logs. After every lifecycle step the status
 * it lists must be the one the log implies (the head may lag, but never lie).
 */
const dir = tempDataDir("reliability-heads");
let checked = 0;
afterAll(async () => {
  tally("head agrees with log", { checked });
  await cleanup(dir);
});

const EMAIL = { name: "send_email", arguments: { to: "ana@example.com", subject: "Lunch" } };
const DONE = { text: "Done", stop: "stop" };

async function expectAgreement(lib: Runlog, runId: string, status: string): Promise<void> {
  expect((await lib.outcome(runId)).status).toBe(status);
  const listed = (await lib.list({ limit: 100 })).runs.find((run) => run.runId === runId);
  expect(listed?.status, `ls status of ${runId}`).toBe(status);
  checked++;
}

describe("the listed status agrees with the log", () => {
  it.each<[string, (lib: Runlog) => Promise<[string, string]>]>([
    [
      "paused, then cancelled",
      async (lib) => {
        await lib.start({
          agent: "demo",
          input: "x",
          model: script(dir, "cancel", [{ toolCalls: [EMAIL] }, DONE]),
          runId: "cancel",
        });
        await expectAgreement(lib, "cancel", "paused");
        await lib.cancel("cancel", { by: "ops" });
        return ["cancel", "cancelled"];
      },
    ],
    [
      "paused, then rejected",
      async (lib) => {
        await lib.start({
          agent: "demo",
          input: "x",
          model: script(dir, "reject", [{ toolCalls: [EMAIL] }, DONE]),
          runId: "reject",
        });
        await lib.reject("reject", "call_0_0", { by: "ops" });
        return ["reject", "completed"];
      },
    ],
    [
      "failed, then sent a message",
      async (lib) => {
        const model = script(dir, "failed", [{ error: "connection" }, DONE]);
        await lib.start({ agent: "demo", input: "x", model, runId: "failed" });
        await expectAgreement(lib, "failed", "failed");
        await lib.send("failed", "try again");
        return ["failed", "completed"];
      },
    ],
    [
      "cut off at the output limit, then forked",
      async (lib) => {
        const model = script(dir, "limit", [{ text: "half", stop: "max_output" }, DONE]);
        await lib.start({ agent: "demo", input: "x", model, runId: "limit" });
        await expectAgreement(lib, "limit", "interrupted");
        await lib.fork({ runId: "limit", forkId: "limit-fork" });
        return ["limit-fork", "completed"];
      },
    ],
    [
      "crashed in another process, then resumed",
      async (lib) => {
        const crashed = await runlog(dir, ["run", "--run-id", "crashed", "go"], {
          RUNLOG_CRASH_AT: "tool:after-run",
        });
        expect(crashed.code).toBe(137);
        await expectAgreement(lib, "crashed", "interrupted");
        await lib.resume({ runId: "crashed" });
        return ["crashed", "completed"];
      },
    ],
  ])("%s", async (_, story) => {
    const { runlog: lib } = await library(dir);
    const [runId, status] = await story(lib);
    await expectAgreement(lib, runId, status);
  });
});
