import { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createAdaptorServer } from "@hono/node-server";
import { LifecycleFeed } from "../api/lifecycleFeed.ts";
import { openLocal } from "../api/local.ts";
import { errorMessage } from "../core/errors.ts";
import { createApp } from "../http/app.ts";
import { loopbackOnly } from "../http/loopback.ts";
import type { RunlogConfig } from "../runtime/readConfig.ts";
import { agentsOption } from "./agentsModule.ts";
import { dataDir } from "./dataDir.ts";
import { parseFlags } from "./flags.ts";
import { progressLine } from "./format.ts";
import { commandHelp } from "./help.ts";
import type { Io } from "./io.ts";
import {
  DEPLOYMENT_OPTIONS,
  deploymentOf,
  openServeDeployment,
  type ServeTarget,
  withConfiguredDeployment,
} from "./serveTarget.ts";
import { serveToken } from "./serveToken.ts";
import { RUN_HERE, stepsPlace } from "./stepsPlace.ts";
import { toolGroupsOption } from "./toolGroupOption.ts";
import { BASE, EXIT, UsageError } from "./usage.ts";

const DEFAULT_PORT = 8787;
const HOST = "127.0.0.1";

function parsePort(value: string | undefined): number {
  if (value === undefined) return DEFAULT_PORT;
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65_535) {
    throw new UsageError(
      `serve: --port takes a port from 0 to 65535 (0 picks a free one), got ${JSON.stringify(value)}`,
    );
  }
  return port;
}

/**
 * Counts requests in flight, so shutdown can wait for them before the store
 * closes, and answers 503 to any that arrive (on a kept-alive connection) after.
 */
function requestGate(fetch: (request: Request) => Response | Promise<Response>) {
  let open = true;
  let inFlight = 0;
  let idle: (() => void) | undefined;
  return {
    fetch: async (request: Request): Promise<Response> => {
      if (!open) {
        const error = { code: "unavailable", message: "runlog serve is shutting down" };
        return Response.json({ error }, { status: 503, headers: { connection: "close" } });
      }
      inFlight++;
      try {
        return await fetch(request);
      } finally {
        inFlight--;
        if (inFlight === 0) idle?.();
      }
    },
    /** Refuse new requests and wait for those under way. */
    close: () => {
      open = false;
      return inFlight === 0
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            idle = resolve;
          });
    },
  };
}

/** Resolves with the first SIGINT or SIGTERM, and calls `again` on every later one. */
function signals(again: () => void): { first: Promise<NodeJS.Signals>; dispose(): void } {
  let seen = false;
  let resolve!: (signal: NodeJS.Signals) => void;
  const first = new Promise<NodeJS.Signals>((r) => {
    resolve = r;
  });
  const on = (signal: NodeJS.Signals) => {
    if (seen) again();
    seen = true;
    resolve(signal);
  };
  process.on("SIGINT", on).on("SIGTERM", on);
  return { first, dispose: () => process.off("SIGINT", on).off("SIGTERM", on) };
}

/** `serve`'s flags (its help, in help.ts, names each). */
export const SERVE_OPTIONS = {
  ...BASE,
  port: { type: "string" },
  "token-file": { type: "string" },
  "allow-scripted": { type: "boolean" },
  "tool-group": { type: "string", multiple: true },
  ...DEPLOYMENT_OPTIONS,
  ...RUN_HERE,
} as const;

/**
 * `runlog serve`: the HTTP API on 127.0.0.1, runs executing in this process in
 * the background (as Step Functions runs them on AWS). On SIGINT or SIGTERM it
 * stops accepting, waits for the executions under way, and exits 0; a second
 * signal gives up waiting (the runs left behind are resumable).
 */
export async function serveCommand(args: string[], io: Io, config: RunlogConfig): Promise<number> {
  const { values } = parseFlags(
    "serve",
    { args, options: SERVE_OPTIONS, strict: true },
    { min: 0, max: 0, names: "no arguments" },
  );
  if (values.help) {
    io.out(commandHelp("serve"));
    return EXIT.completed;
  }
  const port = parsePort(values.port);
  const deployment = deploymentOf(withConfiguredDeployment(values, config));
  // Serving this machine's runs executes their steps here: a deployed table needs --run-here.
  if (deployment === undefined) stepsPlace("serve", config, values["run-here"] === true);
  if (deployment !== undefined && values["allow-scripted"])
    throw new UsageError(
      "serve: --allow-scripted is for this machine's runs; with --table the deployment's functions would read the files",
    );
  const toolGroups = toolGroupsOption(values["tool-group"]);
  if (deployment !== undefined && toolGroups !== undefined)
    throw new UsageError(
      "serve: --tool-group is for this machine's runs; with --table the stack's toolGroups route them",
    );
  const token = await serveToken(values["token-file"]);
  const module = await agentsOption(values.agents, config.agents);
  // This machine's runs' lifecycle events, for GET /lifecycle; a deployment's are on its bus.
  const lifecycle = deployment === undefined ? new LifecycleFeed() : undefined;
  const local: ServeTarget = deployment
    ? await openServeDeployment(deployment, module)
    : await openLocal(
        {
          ...(module === undefined ? {} : { agents: module.agents }),
          ...(module?.models === undefined ? {} : { models: module.models }),
          ...(module?.prices === undefined ? {} : { prices: module.prices }),
          ...(toolGroups === undefined ? {} : { toolGroups }),
          background: true,
          dataDir: (await dataDir(values.dir, config.dataDir, { create: true })).path,
          observer: { appended: (runId, event) => io.out(progressLine(runId, event)) },
          onBackgroundError: (runId, error) => io.err(`runlog: run ${runId}: ${errorMessage(error)}`),
          ...(lifecycle === undefined ? {} : { onLifecycle: lifecycle.tell }),
        },
        config,
      );
  let forced!: () => void;
  const gaveUp = new Promise<number>((resolve) => {
    // 128 + SIGINT, as a shell reports an interrupted command.
    forced = () => resolve(130);
  });
  const stop = signals(() => forced());
  try {
    // Script files are read with this process's rights, so only on request (--allow-scripted, this
    // machine's runs only). Pointed at a deployment, the stack's CallModel would read them, where
    // they are not: refused as the deployed API refuses them.
    const app = createApp(local.runlog, {
      allowScriptFiles: deployment === undefined && values["allow-scripted"] === true,
      localToken: token,
      viewer: true,
      ...(local.live === undefined ? {} : { live: local.live }),
      ...(lifecycle === undefined ? {} : { lifecycle }),
    });
    const gate = requestGate(app.fetch);
    let bound = port;
    const server = createAdaptorServer({ fetch: loopbackOnly(gate.fetch, () => bound), hostname: HOST });
    bound = await listen(server, port).catch(async (error: unknown) => {
      await local.close();
      throw error;
    });
    io.out(`runlog serve: listening on http://${HOST}:${bound}/?token=${token} (store: ${local.where})`);
    const signal = await stop.first;
    io.out(`runlog serve: ${signal}: no new requests; waiting for runs under way (again to stop now)`);
    // Not waiting for the server's "close": a client that left a body unread can hold its socket open forever.
    server.close();
    // Long-polls answer and live streams end now, instead of holding the shutdown up to their wait.
    local.live?.close();
    lifecycle?.close();
    const drained = gate
      .close()
      .then(() => local.close())
      .then(() => EXIT.completed);
    const code = await Promise.race([drained, gaveUp]);
    if (server instanceof Server) server.closeAllConnections();
    io.out(
      code === EXIT.completed ? "runlog serve: stopped" : "runlog serve: stopped without waiting for runs",
    );
    return code;
  } finally {
    stop.dispose();
  }
}

/** Listen on 127.0.0.1; resolves with the port bound (the free one `0` picked), rejects on EADDRINUSE and the like. */
function listen(server: ReturnType<typeof createAdaptorServer>, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) =>
      reject(
        error.code === "EADDRINUSE"
          ? new Error(`port ${port} on ${HOST} is in use; choose another with --port (0 picks a free one)`)
          : error,
      ),
    );
    server.listen(port, HOST, () => {
      server.removeAllListeners("error");
      resolve((server.address() as AddressInfo).port);
    });
  });
}
