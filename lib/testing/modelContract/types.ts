import type { Model } from "../../ports/model.ts";

/** One tool call the fake server sends: the arguments as the exact text the model streams (it may be invalid JSON). */
export interface ContractToolCall {
  name: string;
  arguments: string;
}

/**
 * How the fake behind the model answers the next call. Every provider's fake must be able to play
 * each of these the way that provider really does it (its own wire format, status codes, events).
 */
export type ContractReply =
  /** Text streamed in these pieces (more than one), the response ending as `ending` says. */
  | { kind: "text"; pieces: string[]; ending: "stop" | "max_output" | "refusal" }
  /** Tool calls, in order, the response ending so they run. */
  | { kind: "tool_calls"; calls: ContractToolCall[] }
  /** The prompt does not fit the model's context window (an error or an ending, as the provider says it). */
  | { kind: "context_full" }
  /** A failure trying again may fix: throttling, a 5xx. */
  | { kind: "retryable" }
  /** A failure that will happen again: a 400, access denied. */
  | { kind: "rejected" }
  /** Text streamed in these pieces, then the stream breaks before the response ends. */
  | { kind: "cut"; pieces: string[] }
  /** No answer at all until long after the test is over (the server stays silent). */
  | { kind: "slow" };

/** One test's model and the fake it talks to. */
export interface ContractFixture {
  /** The model under test, talking to this fixture's fake. */
  model: Model;
  /** Make the fake answer the next call (the call the test makes, turn 0) as `reply` says. */
  reply(reply: ContractReply): void | Promise<void>;
  /** Release what the fixture holds (a server, a temporary file). */
  close?(): void | Promise<void>;
}

/** The provider under test: its name and how to make a fresh fixture for each test. */
export interface ModelContractSubject {
  /** Names the tests, e.g. `openai`. */
  name: string;
  /** A fresh model and fake for one test. Make the model fail fast: no retries of its own. */
  open(): ContractFixture | Promise<ContractFixture>;
}

/** A test runner's `test` (vitest, node:test, jest): a name and an async body. */
export type ContractTest = (name: string, body: () => Promise<void>) => unknown;
