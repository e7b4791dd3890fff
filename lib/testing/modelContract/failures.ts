import assert from "node:assert/strict";
import { assertEnding, assertErrorNamed, callWith, contractRequest, failureOf } from "./calls.ts";
import type { ContractCase } from "./endings.ts";
import type { ContractFixture } from "./types.ts";

/** How long the slow reply runs before the test's deadline or cancel comes. */
const BEFORE_ABORT_MS = 50;

/** A call to a fake that stays silent, and `abort` run on the controller once it is under way. */
async function slowCallAborted(
  fixture: ContractFixture,
  as: "signal" | "deadline",
  reason: unknown,
  what: string,
): Promise<unknown> {
  await fixture.reply({ kind: "slow" });
  const controller = new AbortController();
  const call = fixture.model.call(contractRequest({ [as]: controller.signal }));
  const timer = setTimeout(() => controller.abort(reason), BEFORE_ABORT_MS);
  try {
    return await failureOf(call, what);
  } finally {
    clearTimeout(timer);
  }
}

/** Failures: which are worth retrying, a broken stream, the step's deadline and a cancel. */
export const FAILURE_CASES: readonly ContractCase[] = [
  {
    name: "a failure that may pass (throttling, a 5xx) throws ModelUnavailableError, so it is retried",
    async run(fixture) {
      const error = await failureOf(callWith(fixture, { kind: "retryable" }), "a retryable failure");
      assertErrorNamed(error, "ModelUnavailableError", "a retryable failure");
    },
  },
  {
    name: "a failure that will happen again (a 400, access denied) throws ModelRejectedError, not retried",
    async run(fixture) {
      const error = await failureOf(callWith(fixture, { kind: "rejected" }), "a rejected request");
      assertErrorNamed(error, "ModelRejectedError", "a rejected request");
    },
  },
  {
    name: "a stream cut off after some text is a reply ending interrupted that keeps the text",
    async run(fixture) {
      const pieces = ["It is ", "sunny "];
      const { reply } = await callWith(fixture, { kind: "cut", pieces });
      assertEnding(reply, "interrupted", "a cut stream");
      assert.equal(reply.text, pieces.join(""), "the text that arrived is kept");
    },
  },
  {
    name: "the step's deadline ends a slow call at once, with ModelUnavailableError when no text came",
    async run(fixture) {
      const error = await slowCallAborted(
        fixture,
        "deadline",
        new Error("deadline"),
        "a call past its deadline",
      );
      assertErrorNamed(error, "ModelUnavailableError", "a call past its deadline");
    },
  },
  {
    name: "a cancel through the abort signal ends the call at once, throwing the signal's reason",
    async run(fixture) {
      const reason = new Error("cancelled by the contract");
      const error = await slowCallAborted(fixture, "signal", reason, "a cancelled call");
      assert.equal(error, reason, "the call throws the signal's reason, not an error of its own");
    },
  },
  {
    name: "a call whose signal is already aborted throws the signal's reason",
    async run(fixture) {
      await fixture.reply({ kind: "slow" });
      const reason = new Error("cancelled before the call");
      const call = fixture.model.call(contractRequest({ signal: AbortSignal.abort(reason) }));
      const error = await failureOf(call, "a call cancelled before it began");
      assert.equal(error, reason, "the call throws the signal's reason");
    },
  },
];
