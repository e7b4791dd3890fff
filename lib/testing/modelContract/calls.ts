import assert from "node:assert/strict";
import type { ModelReply, ModelRequest } from "../../ports/model.ts";
import type { ContractFixture, ContractReply } from "./types.ts";

/** How long a call may go on after its deadline or cancel before the contract calls it stuck. */
export const SETTLE_MS = 10_000;

/** The request every contract call sends: one user message, one tool the model may call. */
export function contractRequest(extra: Partial<ModelRequest> = {}): ModelRequest {
  return {
    runId: "contract-run",
    turn: 0,
    instructions: "Answer briefly.",
    messages: [{ role: "user", content: "What is the weather in Oslo?" }],
    tools: [
      {
        name: "get_weather",
        description: "The weather in a city.",
        parameters: {
          type: "object",
          properties: { city: { type: "string" } },
          required: ["city"],
          additionalProperties: false,
        },
      },
    ],
    ...extra,
  };
}

/** The reply to one call the fake answers with `reply`, and the text pieces `onText` was told. */
export async function callWith(
  fixture: ContractFixture,
  reply: ContractReply,
  extra: Partial<ModelRequest> = {},
): Promise<{ reply: ModelReply; pieces: string[] }> {
  await fixture.reply(reply);
  const pieces: string[] = [];
  const answer = await fixture.model.call(
    contractRequest({ ...extra, onText: (piece) => pieces.push(piece) }),
  );
  return { reply: answer, pieces };
}

/** What the call threw; fails when it answered instead, or did not settle within SETTLE_MS. */
export async function failureOf(call: Promise<unknown>, what: string): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  const stuck = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what}: the call had not ended ${SETTLE_MS} ms later`)),
      SETTLE_MS,
    );
  });
  try {
    const reply = await Promise.race([call, stuck]);
    assert.fail(`${what}: expected the call to fail, it answered ${JSON.stringify(reply)}`);
  } catch (error) {
    if (error instanceof assert.AssertionError) throw error;
    if (error instanceof Error && error.message.startsWith(`${what}: the call had not ended`)) throw error;
    return error;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Assert `error` is runlog's error of that name. Checked by name, as the state machine's Retry and
 * Catch match it, so a model built against another copy of runlog passes too.
 */
export function assertErrorNamed(
  error: unknown,
  name: "ModelUnavailableError" | "ModelRejectedError",
  what: string,
): void {
  const got = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  assert.ok(error instanceof Error && error.name === name, `${what}: expected a ${name}, got ${got}`);
}

/** A reply that ended with `stop`, carrying no tool calls. */
export function assertEnding(reply: ModelReply, stop: string, what: string): void {
  assert.equal(reply.stop, stop, `${what}: stop`);
  assert.deepEqual(reply.toolCalls, [], `${what}: a reply ending ${stop} carries no tool calls`);
}
