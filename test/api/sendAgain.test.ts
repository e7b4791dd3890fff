import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LocalRunlog, openLocal } from "../../lib/api/local.ts";
import { cleanup, script, tempDataDir, testEnv } from "../support/cli.ts";

/** A message sent again with its idempotency key answers as the first send did, whatever came after. */
const dir = tempDataDir("send-again");
let local: LocalRunlog;
beforeAll(async () => {
  local = await openLocal({ dataDir: dir, env: testEnv() });
});
afterAll(async () => {
  await local.close();
  await cleanup(dir);
});

describe("a keyed message sent again", () => {
  it("answers with that message's answer, after later messages, and writes nothing", async () => {
    const model = script(dir, "chat", [{ text: "a1" }, { text: "a2" }, { text: "a3" }]);
    expect((await local.runlog.start({ agent: "demo", input: "q1", runId: "chat", model })).output).toBe(
      "a1",
    );
    expect(await local.runlog.send("chat", "q2", { idempotencyKey: "k2" })).toMatchObject({
      status: "completed",
      output: "a2",
    });
    // Again at once: the same answer (the run's last).
    expect((await local.runlog.send("chat", "q2", { idempotencyKey: "k2" })).output).toBe("a2");
    expect((await local.runlog.send("chat", "q3")).output).toBe("a3");
    const stored = (await local.runlog.events("chat")).length;
    // After the run went on with q3: still q2's answer, not the run's latest.
    expect(await local.runlog.send("chat", "q2", { idempotencyKey: "k2" })).toEqual({
      runId: "chat",
      status: "completed",
      output: "a2",
    });
    expect(await local.runlog.events("chat")).toHaveLength(stored);
    expect(await local.runlog.outcome("chat")).toMatchObject({ output: "a3" });
  });

  it("answers paused when that message paused the run, though a decision and later messages followed", async () => {
    const EMAIL = { name: "send_email", arguments: { to: "ana@example.com", subject: "Lunch" } };
    const model = script(dir, "mail", [
      { text: "a1" },
      { toolCalls: [EMAIL] },
      { text: "sent" },
      { text: "a4" },
    ]);
    await local.runlog.start({ agent: "demo", input: "q1", runId: "mail", model });
    expect((await local.runlog.send("mail", "mail ana", { idempotencyKey: "k-mail" })).status).toBe("paused");
    expect((await local.runlog.approve("mail", "call_1_0", { by: "ana" })).status).toBe("completed");
    expect((await local.runlog.send("mail", "more")).output).toBe("a4");
    expect(await local.runlog.send("mail", "mail ana", { idempotencyKey: "k-mail" })).toMatchObject({
      status: "paused",
    });
  });
});
