import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HandlerName } from "../../cdk/runlogFunction.ts";
import { stamp } from "../../lib/core/storedEvents.ts";
import { useFunctionEnvironment } from "../functions/support.ts";
import { bundleFile, bundleOf, HANDLERS, localOnlySources, type Synthesized, synthesize } from "./synth.ts";

type Handler = (event: unknown) => Promise<unknown>;
const outdir = mkdtempSync(join(tmpdir(), "runlog-cdk-bundle-"));
const env = useFunctionEnvironment("cdk-bundle");
let s: Synthesized;

/** Load the handler esbuild bundled for a function, as Lambda would. */
async function bundled(handler: HandlerName): Promise<Handler> {
  const file = bundleFile(s, outdir, handler);
  return ((await import(pathToFileURL(file).href)) as { handler: Handler }).handler;
}

beforeAll(() => {
  s = synthesize(
    { agentsModule: join(import.meta.dirname, "fixtures", "agents.ts") },
    { bundle: true, outdir },
  );
}, 180_000);
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

describe("the bundled functions", () => {
  it.each(HANDLERS)("%s holds nothing only the local runtime needs", (handler) => {
    const { sources } = bundleOf(s, outdir, handler);
    // The map lists every file esbuild kept; a bundle of runlog's lib and the SDK has hundreds.
    expect(sources.some((source) => source.includes("lib/steps/"))).toBe(true);
    expect(sources.some((source) => source.includes("node_modules/@aws-sdk/"))).toBe(true);
    expect(localOnlySources(sources)).toEqual([]);
  });

  it("serve the agents module the stack names, with the SDKs and error names inside", async () => {
    const runId = "bundled-1";
    const first = stamp(
      { type: "run_started", runId, agent: "fixture", model: "scripted:demo", input: "go" },
      1,
      new Date(),
    );
    if (first.type !== "run_started") throw new Error("unreachable");
    await env.store().createRun(first, { owner: "sfn:bundled-1-g1", until: Date.now() + 60_000 });

    const callModel = await bundled("callModel");
    const next = (await callModel({ runId, generation: 1 })) as {
      action: string;
      callIds: string[];
      tools: string[];
    };
    expect(next).toEqual({ action: "tools", callIds: ["call_0_0"], tools: ["get_weather"] });
    const runTool = await bundled("runTool");
    expect(await runTool({ runId, generation: 1, callId: "call_0_0" })).toEqual({
      callId: "call_0_0",
      isError: false,
    });
    expect((await env.store().read(runId)).at(-1)).toMatchObject({
      type: "tool_result",
      content: "fixture weather for Lisbon",
    });

    // The demo agent is not in this bundle; the error keeps its class name through minification.
    const demo = stamp(
      { type: "run_started", runId: "bundled-2", agent: "demo", model: "scripted:demo", input: "go" },
      1,
      new Date(),
    );
    if (demo.type !== "run_started") throw new Error("unreachable");
    await env.store().createRun(demo);
    const thrown = await callModel({ runId: "bundled-2", generation: 1 }).catch((error: Error) => error);
    expect(thrown).toMatchObject({
      name: "PermanentError",
      message: expect.stringMatching(/^NotFoundError: unknown agent "demo"/),
    });
  });

  it("call the model providers the agents module exports beside its agents", async () => {
    const runId = "bundled-own-model";
    const first = stamp(
      { type: "run_started", runId, agent: "fixture", model: "fixed:house", input: "go" },
      1,
      new Date(),
    );
    if (first.type !== "run_started") throw new Error("unreachable");
    await env.store().createRun(first, { owner: `sfn:${runId}-g1`, until: Date.now() + 60_000 });
    const callModel = await bundled("callModel");
    expect(await callModel({ runId, generation: 1 })).toMatchObject({ action: "done" });
    expect((await env.store().read(runId)).at(-1)).toMatchObject({
      type: "model_response",
      model: "fixed:house",
      text: "fixed answer from house",
    });
  });
});
