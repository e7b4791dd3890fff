import { AsyncLocalStorage } from "node:async_hooks";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import type { HandlerName } from "../../../cdk/runlogFunction.ts";
import { type AwsClient, observeClients } from "../../../lib/runtime/aws/handlerDeps.ts";
import { type AwsCall, callsOf } from "./awsCalls.ts";

/** Where a test run writes each file's recorded calls (`<dir>/<label>.json`); unset, nothing is written. */
export const CALLS_DIR_VARIABLE = "RUNLOG_AWS_CALLS_DIR";

/** Which function the code running now belongs to: set around each handler a test calls. */
const running = new AsyncLocalStorage<HandlerName>();
const recorded: AwsCall[] = [];

/**
 * A handler whose AWS calls are recorded as `fn`'s. In a test every function shares one process
 * and one set of clients; on AWS each has its own role, so each call must say whose it was.
 */
export function asFunction<A extends unknown[], O>(
  fn: HandlerName,
  handler: (...args: A) => Promise<O>,
): (...args: A) => Promise<O> {
  return (...args) => running.run(fn, () => handler(...args));
}

type Send = (command: { constructor: { name: string }; input: unknown }, ...rest: unknown[]) => unknown;

/**
 * Record every call the client sends while a function runs. A wrapper of this instance's `send`,
 * not a middleware: aws-sdk-client-mock replaces `send` on the client's prototype, so a mocked
 * call never reaches the middleware stack, and the wrapper sees mocked and real calls alike.
 * Calls made outside any function (a test's own setup through the functions' deps) are not theirs.
 */
export function recordCalls(client: AwsClient): void {
  const serviceId = client.config.serviceId;
  const own: Send = function (this: AwsClient, command, ...rest) {
    const fn = running.getStore();
    if (fn !== undefined) {
      recorded.push(
        ...callsOf(fn, serviceId, command.constructor.name, command.input as Record<string, unknown>),
      );
    }
    // Looked up at each call: a mock installed or reset after this client was made still answers.
    const send = (Object.getPrototypeOf(client) as { send: Send }).send;
    return send.call(client, command, ...rest);
  };
  Object.defineProperty(client, "send", { value: own, configurable: true, writable: true });
}

/**
 * Record the AWS calls of the functions this test file runs, and write them to
 * `$RUNLOG_AWS_CALLS_DIR/<label>.json` at the end when that is set (test/reliability/permissions.test.ts).
 */
export function useCallRecording(label: string): void {
  let stop = () => {};
  beforeAll(() => {
    const unobserve = observeClients(recordCalls);
    stop = () => {
      unobserve();
    };
  });
  afterAll(() => {
    stop();
    const dir = process.env[CALLS_DIR_VARIABLE];
    if (dir === undefined) return;
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `${label}.json`), JSON.stringify(recorded));
  });
}
