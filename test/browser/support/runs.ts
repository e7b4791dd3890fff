import { expect } from "vitest";
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
  const response = await fetch(`${served.url}/runs`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ agent: "demo", input, model, runId }),
  });
  expect(response.status, await response.clone().text()).toBe(202);
}
