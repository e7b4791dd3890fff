import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanup, type ShownEvent, script, tempDataDir } from "../support/cli.ts";
import { expectSound } from "./support/checks.ts";
import { FAULTS, type Fault, type ProxiedRequest } from "./support/faultProxy.ts";
import { driveThroughFaults, type FaultyRunlog, faultyRunlog } from "./support/faultyStore.ts";
import { tally } from "./support/tally.ts";
import { prng } from "./support/turns.ts";

/**
 * DynamoDB throttling, 5xx, timeouts and lost answers, injected by a proxy in
 * front of dynalite (in this process). A step retries or fails cleanly; no event is
 * lost or written twice; a write that landed but whose answer was lost is
 * recognised as done, not taken for someone else's.
 */
const dir = tempDataDir("reliability-faults");
let faulty: FaultyRunlog;
const counts = { runs: 0, requests: 0, faults: 0, errorsSurfaced: 0, storeFailuresRecordedAsModelFailed: 0 };

beforeAll(async () => {
  faulty = await faultyRunlog(dir);
});

/** An email needing approval and a note, both naming the run; spare final answers for failures recorded as turns. */
const modelFor = (runId: string) =>
  script(dir, runId, [
    {
      toolCalls: [
        { name: "send_email", arguments: { to: "ana@example.com", subject: runId } },
        { name: "write_note", arguments: { text: runId } },
      ],
    },
    ...Array.from({ length: 6 }, () => ({ text: "Done", stop: "stop" })),
  ]);
afterAll(async () => {
  counts.requests = faulty.proxy.seen.requests;
  counts.faults = FAULTS.reduce((sum, fault) => sum + (faulty.proxy.seen[fault] ?? 0), 0);
  tally("store faults", { ...counts, ...faulty.proxy.seen });
  await faulty.close();
  await cleanup(dir);
});

const parse = (request: ProxiedRequest) =>
  JSON.parse(request.body) as {
    Item?: Record<string, { S?: string }>;
    Key?: Record<string, { S?: string }>;
    UpdateExpression?: string;
  };
const runOf = (request: ProxiedRequest) => {
  const body = parse(request);
  return body.Item?.runId?.S ?? body.Key?.runId?.S;
};
const put = (type: string) => (request: ProxiedRequest) =>
  request.operation === "PutItem" && parse(request).Item?.type?.S === type;

/** The writes a run makes, each of which gets one fault of every kind. */
const TARGETS: Record<string, (request: ProxiedRequest) => boolean> = {
  "the run_started put": put("run_started"),
  "a model_response put": put("model_response"),
  "a tool_started put": put("tool_started"),
  "a tool_result put": put("tool_result"),
  "the tool_decided put": put("tool_decided"),
  "the resumed put": put("resumed"),
  "the lease claim": (r) =>
    r.operation === "UpdateItem" && /leaseVersion = :next/.test(parse(r).UpdateExpression ?? ""),
};

/** The run's log as stored, read past the proxy; checked for soundness and against what was acknowledged. */
async function checkedLog(runId: string): Promise<ShownEvent[]> {
  const log = (await faulty.truth.read(runId)) as unknown as ShownEvent[];
  expectSound(dir, log);
  for (const [key, event] of faulty.acknowledged)
    if (key.startsWith(`${runId}#`)) expect(log[event.seq - 1]).toEqual(event);
  const count = (type: string) => log.filter((e) => e.type === type).length;
  // CallModel's Catch records any failure, a store's too, as model_failed: counted, not hidden.
  counts.storeFailuresRecordedAsModelFailed += count("model_failed");
  expect(count("run_started")).toBe(1);
  expect(count("tool_decided")).toBe(1);
  return log;
}

describe.each(Object.keys(TARGETS))("one fault on %s", (target) => {
  it.each(FAULTS)(
    "%s: the SDK's retry converges; the run goes on as if nothing happened",
    async (fault: Fault) => {
      const runId = `${target.replace(/\W+/g, "-")}-${fault}`;
      let injected = false;
      faulty.proxy.choose = (request) => {
        if (injected || runOf(request) !== runId || !TARGETS[target]!(request)) return undefined;
        injected = true;
        return fault;
      };
      const model = modelFor(runId);
      const paused = await faulty.runlog.start({ agent: "demo", input: "email Ana", model, runId });
      expect(paused).toMatchObject({ created: true, status: "paused" });
      expect(await faulty.runlog.approve(runId, "call_0_0", { by: "ana" })).toMatchObject({
        status: "completed",
      });
      faulty.proxy.choose = () => undefined;
      counts.runs++;

      expect(injected).toBe(true);
      const log = await checkedLog(runId);
      expect(log.map((e) => e.type)).toEqual([
        "run_started",
        "model_response",
        "tool_started",
        "tool_result",
        "paused",
        "tool_decided",
        "resumed",
        "tool_started",
        "tool_result",
        "model_response",
      ]);
      expect(log.filter((e) => e.interrupted)).toEqual([]);
      expect(await faulty.truth.getHead(runId)).toMatchObject({ status: "completed", lastSeq: log.length });
    },
  );
});

describe("seeded random faults on every request", () => {
  const RATE = 0.25;
  it.each([1, 2, 3, 4, 5, 6, 7, 8])(
    "seed %i: every run completes, sound, nothing acknowledged is lost",
    async (seed) => {
      const random = prng(seed);
      faulty.proxy.choose = () =>
        random() < RATE ? FAULTS[Math.floor(random() * FAULTS.length)] : undefined;
      const runId = `soak-${seed}`;
      try {
        const start = { agent: "demo", input: "email Ana", model: modelFor(runId), runId };
        const drive = await driveThroughFaults(faulty.runlog, start);
        counts.errorsSurfaced += drive.errors.length;
      } finally {
        faulty.proxy.choose = () => undefined;
      }
      counts.runs++;
      await checkedLog(runId);
    },
  );
});
