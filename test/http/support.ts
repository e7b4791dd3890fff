import { readFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { Hono } from "hono";
import { expect } from "vitest";
import { type LocalRunlog, openLocal } from "../../lib/api/local.ts";
import { type AppOptions, createApp } from "../../lib/http/app.ts";
import { cleanup, tempDataDir, testEnv } from "../support/cli.ts";

export interface Answer {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

/** A real Runlog in background mode (as `runlog serve` runs it) on a fresh data dir, and the app over it. */
export async function openApp(label: string, options: AppOptions = { allowScriptFiles: true }) {
  const dir = tempDataDir(label);
  const local: LocalRunlog = await openLocal({ dataDir: dir, background: true, env: testEnv() });
  const app = createApp(local.runlog, options);
  return {
    dir,
    local,
    app,
    /** Drain the background executions and close the store. */
    close: async () => {
      await local.close();
      await cleanup(dir);
    },
  };
}

/** Send one request to the app in process and read its JSON answer (every answer of this API is JSON). */
export async function call(
  app: Hono,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const init: RequestInit = {
    method,
    headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
  };
  if (body !== undefined) init.body = typeof body === "string" ? body : JSON.stringify(body);
  const response = await app.request(path, init);
  const text = await response.text();
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new Error(`${method} ${path} answered ${response.status} with non-JSON: ${text.slice(0, 200)}`);
  }
  return { status: response.status, headers: response.headers, body: parsed };
}

/** Assert the one error shape: `{"error": {"code", "message"}}` with this status and code. */
export function expectError(
  answer: Answer,
  status: number,
  code: string,
): { code: string; message: string; field?: string } {
  expect(answer, JSON.stringify(answer.body)).toMatchObject({
    status,
    body: { error: { code, message: expect.any(String) } },
  });
  return answer.body.error as { code: string; message: string; field?: string };
}

/**
 * Poll GET /runs/{id} until the run is no longer `running` (its background
 * execution ended). No deadline of its own: the test's timeout is the limit.
 * The first read that is not `running` is read once more: Runlog.outcome reads
 * the log before the head, so an execution that ends between the two reads
 * shows the older log's status with no lease (see the report on lib/api).
 */
export async function settled(app: Hono, runId: string): Promise<Record<string, unknown>> {
  for (;;) {
    const { status, body } = await call(app, "GET", `/runs/${runId}`);
    expect(status).toBe(200);
    if (body.status !== "running") return (await call(app, "GET", `/runs/${runId}`)).body;
    await sleep(20);
  }
}

/** The lines of a side-effect file in the data dir (outbox.txt, notes.txt). */
export function lines(dir: string, file: string): string[] {
  try {
    return readFileSync(join(dir, file), "utf8").split("\n").filter(Boolean);
  } catch {
    return [];
  }
}

export const EMAIL = { name: "send_email", arguments: { to: "ana@example.com", subject: "Lunch" } };
export const DONE = { text: "Done", stop: "stop" };
