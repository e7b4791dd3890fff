import { expect, vi } from "vitest";
import { script } from "../../support/cli.ts";
import type { Served } from "../../support/serve.ts";

/**
 * Start a run of the demo agent through the served JSON API (as another tab or a backend would),
 * its model scripted with `turns` (a script file in `dir`).
 */
export async function startRun(
  served: Served,
  dir: string,
  runId: string,
  turns: unknown[],
  input = "Plan my afternoon",
): Promise<void> {
  const model = script(dir, runId, turns);
  const response = await served.fetch("/runs", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ agent: "demo", input, model, runId }),
  });
  expect(response.status, await response.clone().text()).toBe(202);
}

/** Wait (up to 30 s) until the served API says run `runId` is `status`. */
export async function settled(served: Served, runId: string, status: string): Promise<void> {
  await vi.waitFor(
    async () => {
      const run = (await (await served.fetch(`/runs/${runId}`)).json()) as { status: string };
      if (run.status !== status) throw new Error(`run ${runId} is ${run.status}, not ${status}`);
    },
    { timeout: 30_000, interval: 100 },
  );
}

/** Approve a waiting call through the served JSON API, as another tab or a backend would. */
export async function approveElsewhere(served: Served, runId: string, callId: string): Promise<void> {
  const response = await served.fetch(`/runs/${runId}/approvals/${callId}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ approved: true, by: "elsewhere" }),
  });
  expect(response.status, await response.clone().text()).toBe(202);
}
