import { SFNClient, StartExecutionCommand } from "@aws-sdk/client-sfn";
import { mockClient } from "aws-sdk-client-mock";
import { beforeEach, describe, expect, it } from "vitest";
import { stamp } from "../../lib/core/storedEvents.ts";
import { NAMES } from "../../lib/runtime/config.ts";
import { started } from "../contract/fixtures.ts";
import { handlers } from "./handlers.ts";
import { STATE_MACHINE_ARN, useFunctionEnvironment } from "./support.ts";

// The sweeper function with the construct's `redrive: { after: 10 minutes }`.
const env = useFunctionEnvironment("fn-auto-redrive", {
  STATE_MACHINE_ARN,
  [NAMES.redriveAfterMs]: "600000",
});
const sfn = mockClient(SFNClient);
beforeEach(() => {
  sfn.reset();
  sfn.on(StartExecutionCommand).resolves({ executionArn: "arn", startDate: new Date() });
});
const tick = { "detail-type": "Scheduled Event", source: "aws.events", detail: {} };

/** A run whose model call failed `ago` ms ago, retryably or not, resting `failed` as Finish leaves it. */
async function failedRun(runId: string, ago: number, retryable: boolean) {
  const at = new Date(Date.now() - ago);
  const store = env.storeAt({ now: () => at });
  await store.createRun(started(runId, "go", at));
  const name = retryable ? "ModelUnavailableError" : "ModelRejectedError";
  await store.append(
    runId,
    stamp({ type: "model_failed", error: { name, message: "no" }, retryable }, 2, at, 1),
  );
  await store.setStatus(runId, "failed", 2);
}

describe("the sweeper's automatic redrive", () => {
  it("redrives a run failed retryably and quiet long enough, and only that one", async () => {
    await failedRun("auto-old", 3_600_000, true);
    await failedRun("auto-new", 60_000, true);
    await failedRun("auto-rejected", 3_600_000, false);
    const report = await handlers.sweeper(tick);
    expect(report.redrive?.runs).toEqual(
      expect.arrayContaining([
        { runId: "auto-old", outcome: "resumed", generation: 2 },
        { runId: "auto-new", outcome: "skipped", why: expect.stringContaining("redriven after 600s") },
        { runId: "auto-rejected", outcome: "skipped", why: expect.stringContaining("rejected") },
      ]),
    );
    const starts = sfn
      .commandCalls(StartExecutionCommand)
      .map((call) => JSON.parse(call.args[0].input.input!));
    expect(starts).toEqual([expect.objectContaining({ runId: "auto-old", generation: 2 })]);
    const log = await env.store().read("auto-old");
    expect(log.at(-1)).toMatchObject({ type: "resumed", by: "redrive", generation: 2 });

    // The next sweep: the redriven run is no longer failed, nothing is started twice.
    sfn.resetHistory();
    const next = await handlers.sweeper(tick);
    expect(next.redrive?.runs.find((r) => r.runId === "auto-old")).toBeUndefined();
    expect(sfn.commandCalls(StartExecutionCommand)).toHaveLength(0);
  });
});
