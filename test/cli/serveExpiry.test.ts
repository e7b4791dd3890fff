import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT, tempDataDir, testEnv } from "../support/cli.ts";
import { type Served, serve, stopServed } from "../support/serve.ts";
import { cli } from "./support.ts";

/**
 * An approval with approvalTimeoutMs expires in `runlog serve` by itself: nobody decides, nobody
 * runs `runlog sweep`, and the run completes with the rejection (issue 34, item 3, locally).
 */
const runlogUrl = pathToFileURL(join(ROOT, "dist", "lib", "index.js")).href;
const zodUrl = pathToFileURL(join(ROOT, "node_modules", "zod", "index.js")).href;
const AGENTS = `
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { defineAgent, defineTool } from "${runlogUrl}";
import { z } from "${zodUrl}";

export const agents = {
  mailer: defineAgent({
    name: "mailer",
    instructions: "Send the mail.",
    model: "scripted:" + join(import.meta.dirname, "script.json"),
    tools: ({ dataDir }) => [
      defineTool({
        name: "send",
        description: "Send an email.",
        parameters: z.object({ to: z.string() }),
        needsApproval: true,
        approvalTimeoutMs: 300,
        run: ({ to }: { to: string }) => {
          writeFileSync(join(dataDir, "sent.txt"), to);
          return "sent to " + to;
        },
      }),
    ],
  }),
};
`;
const SCRIPT = {
  turns: [{ toolCalls: [{ name: "send", arguments: { to: "ann" } }] }, { text: "Nobody approved it." }],
};

const project = tempDataDir("serve-expiry-project");
let served: Served | undefined;

beforeAll(() => {
  writeFileSync(join(project, "agents.ts"), AGENTS);
  writeFileSync(join(project, "script.json"), JSON.stringify(SCRIPT));
});

afterAll(() => stopServed(served));

/** Read a run until it rests (bounded: a server that never expires fails the test), then its events. */
async function rested(runId: string) {
  let run: { status: string; output: string | null } = { status: "running", output: null };
  for (let tries = 0; tries < 200 && run.status !== "completed"; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    run = (await (await served!.fetch(`/runs/${runId}`)).json()) as typeof run;
  }
  const { events } = (await (await served!.fetch(`/runs/${runId}/events`)).json()) as { events: Event[] };
  return { run, events };
}

/** What an expiry leaves: one decision by timeout, the run completed, the tool never run. */
function expectExpired(dir: string, { run, events }: Awaited<ReturnType<typeof rested>>) {
  expect(run).toMatchObject({ status: "completed", output: "Nobody approved it." });
  expect(events.filter((event) => event.type === "tool_decided")).toEqual([
    expect.objectContaining({ approved: false, by: "timeout", reason: "approval expired" }),
  ]);
  expect(events.map((event) => event.type)).toContain("paused");
  expect(existsSync(join(dir, "sent.txt"))).toBe(false);
}

interface Event {
  type: string;
  by?: string;
  reason?: string;
  approved?: boolean;
}

describe("runlog serve expires approvals on time", () => {
  it("an approval nobody decides is answered as rejected by timeout, and the run completes", async () => {
    const dir = tempDataDir("serve-expiry");
    served = await serve(["--dir", dir, "--agents", join(project, "agents.ts")], testEnv());
    const started = await served.fetch("/runs", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ agent: "mailer", input: "mail ann" }),
    });
    expect(started.status).toBe(202);
    const { runId } = (await started.json()) as { runId: string };

    expectExpired(dir, await rested(runId));
  });

  it("a run paused before serve started expires once serve is up", async () => {
    const dir = tempDataDir("serve-expiry-before");
    const agents = join(project, "agents.ts");
    const paused = await cli(["run", "--agents", agents, "--agent", "mailer", "--json", "mail ann"], { dir });
    expect(paused.code).toBe(3);
    const { runId } = JSON.parse(paused.stdout) as { runId: string };
    stopServed(served);
    served = await serve(["--dir", dir, "--agents", agents], testEnv());
    expectExpired(dir, await rested(runId));
  });
});
