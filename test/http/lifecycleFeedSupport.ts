import { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createAdaptorServer } from "@hono/node-server";
import { LifecycleFeed } from "../../lib/api/lifecycleFeed.ts";
import { openLocal } from "../../lib/api/local.ts";
import type { LifecycleEvent } from "../../lib/core/lifecycleSchemas.ts";
import type { Principal } from "../../lib/core/principal.ts";
import { createApp } from "../../lib/http/app.ts";
import { cleanup, tempDataDir, testEnv } from "../support/cli.ts";

/** Who a request is, by its `x-test-principal` header (where IAM or a JWT authorizer would say it). */
export const PRINCIPALS: Record<string, Principal> = {
  alice: { id: "arn:aws:iam::1:user/alice" },
  bob: { id: "arn:aws:iam::1:user/bob" },
  ops: { id: "arn:aws:iam::1:role/ops", admin: true },
};

/** The app over a local runtime whose lifecycle events feed GET /lifecycle, on a real port; and the same app without a feed. */
export interface FeedServer {
  url: string;
  /** The same Runlog served as a deployed API serves it: no feed, no principal. */
  deployedUrl: string;
  dir: string;
  feed: LifecycleFeed;
  /** What onLifecycle was told of one run, in order. */
  toldOf(runId: string): LifecycleEvent[];
  post(path: string, body: unknown, who: string): Promise<Response>;
  /** Cut every open connection (a proxy or the network dropping them). */
  dropConnections(): void;
  /** How many requests GET /lifecycle had. */
  lifecycleRequests(): number;
  close(): Promise<void>;
}

export async function serveFeed(label: string, feed = new LifecycleFeed()): Promise<FeedServer> {
  const dir = tempDataDir(label);
  const told: LifecycleEvent[] = [];
  const local = await openLocal({
    dataDir: dir,
    background: true,
    env: testEnv(),
    onLifecycle: (event) => {
      told.push(event);
      feed.tell(event);
    },
  });
  const app = createApp(local.runlog, {
    allowScriptFiles: true,
    lifecycle: feed,
    principal: (c) => PRINCIPALS[c.req.header("x-test-principal") ?? ""],
  });
  let lifecycleRequests = 0;
  const server = await listen((request) => {
    if (new URL(request.url).pathname === "/lifecycle") lifecycleRequests++;
    return app.fetch(request);
  });
  const deployed = await listen(createApp(local.runlog, { allowScriptFiles: true }).fetch);
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    deployedUrl: `http://127.0.0.1:${(deployed.address() as AddressInfo).port}`,
    dir,
    feed,
    toldOf: (runId) => told.filter((event) => event.runId === runId),
    post: (path, body, who) =>
      fetch(`${url}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-test-principal": who },
        body: JSON.stringify(body),
      }),
    dropConnections: () => {
      if (server instanceof Server) server.closeAllConnections();
    },
    lifecycleRequests: () => lifecycleRequests,
    close: async () => {
      feed.close();
      for (const s of [server, deployed]) {
        await new Promise<void>((resolve) => {
          s.close(() => resolve());
          if (s instanceof Server) s.closeAllConnections();
        });
      }
      await local.close();
      await cleanup(dir);
    },
  };
}

async function listen(fetch: (request: Request) => Response | Promise<Response>) {
  const server = createAdaptorServer({ fetch, hostname: "127.0.0.1" });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return server;
}
