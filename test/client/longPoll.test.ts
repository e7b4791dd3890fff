import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, type RunlogClient } from "../../lib/client/client.ts";
import { DONE, EMAIL } from "../http/support.ts";
import { script } from "../support/cli.ts";
import { type ServedApp, serveApp } from "./support.ts";

/** follow against an app served as the Lambda serves it: no live feed, so GET /runs/{id}/live is a 404. */
let served: ServedApp;
let client: RunlogClient;

beforeAll(async () => {
  served = await serveApp("client-long-poll", { live: false });
  client = createClient({ url: served.url, auth: { type: "bearer", token: served.token } });
});
afterAll(() => served.close());

describe("follow on a server without a live feed", () => {
  it("long-polls the events instead, every event once and in order, to the run's end", async () => {
    const model = script(served.dir, "polled", [{ toolCalls: [EMAIL] }, DONE]);
    await client.start({ agent: "demo", input: "Mail Ana", runId: "polled", model });
    while ((await client.get("polled")).status !== "paused") await sleep(20);
    const paused = (await client.events("polled")).at(-1)!.seq;
    const seen: number[] = [];
    for await (const event of client.follow("polled", { waitSeconds: 5 })) {
      seen.push(event.seq);
      if (event.seq === paused) await client.approve("polled", "call_0_0");
      if (event.type === "model_response" && "stop" in event && event.stop === "stop") break;
    }
    const stored = (await client.events("polled")).map((event) => event.seq);
    expect(seen).toEqual(stored);
    expect(seen).toEqual(seen.map((_, index) => index + 1));
    const paths = served.requests.map((request) => request.path);
    expect(paths.filter((path) => path === "/runs/polled/live")).toHaveLength(1);
    expect(paths.filter((path) => path === "/runs/polled/events").length).toBeGreaterThan(1);
  });
});
