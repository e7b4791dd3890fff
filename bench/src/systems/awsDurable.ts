/**
 * AWS Lambda durable functions, run by their local test runner (`LocalDurableTestRunner`): the agent
 * loop is the handler, each model call and each tool call a `context.step` whose result the runner's
 * checkpoint service records before the step returns. The runner keeps that record in memory (in a
 * worker thread), not on disk: "persisted" here means checkpointed with the simulated service.
 */
import { type DurableContext, withDurableExecution } from "@aws/durable-execution-sdk-js";
import { LocalDurableTestRunner } from "@aws/durable-execution-sdk-js-testing";
import { gaps, maxRssKb, now } from "../measure.ts";
import {
  type ChildReport,
  callId,
  FINAL_ANSWER,
  TOOL_NAME,
  toolArgs,
  toolResult,
  USER_INPUT,
} from "../workload.ts";

type Reply = { text: string; toolCalls: Array<{ id: string; name: string; arguments: string }> };

interface Hooks {
  /** Called after each tool step returns (turn k, 0-based), on first execution and on replay. */
  toolDone(turn: number): void;
  /** When set, the handler suspends (a durable wait) after this many tool turns, as an interrupted invocation. */
  suspendAfter?: number;
  suspended?(): void;
}

function handler(toolTurns: number, hooks: Hooks) {
  return withDurableExecution(async (event: { input: string }, context: DurableContext) => {
    const messages: unknown[] = [{ role: "user", content: event.input }];
    for (let turn = 0; ; turn++) {
      // The scripted model: what it answers depends only on the turn.
      const reply = await context.step(`model-${turn}`, async (): Promise<Reply> => {
        if (turn >= toolTurns) return { text: FINAL_ANSWER, toolCalls: [] };
        return {
          text: "",
          toolCalls: [{ id: callId(turn), name: TOOL_NAME, arguments: JSON.stringify(toolArgs(turn)) }],
        };
      });
      messages.push({ role: "assistant", ...reply });
      const call = reply.toolCalls[0];
      if (!call) return reply.text;
      const content = await context.step(`tool-${turn}`, async () =>
        toolResult((JSON.parse(call.arguments) as { page: number }).page),
      );
      messages.push({ role: "tool", tool_call_id: call.id, content });
      hooks.toolDone(turn);
      if (hooks.suspendAfter === turn + 1) {
        hooks.suspended?.();
        await context.wait(`suspend-${turn}`, { seconds: 1 });
      }
    }
  });
}

const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value) ?? "", "utf8");
const turnOf = (name: string | undefined) => Number(/^(?:model|tool)-(\d+)$/.exec(name ?? "")?.[1] ?? -1);

/**
 * One process does both measurements, since the runner's checkpoints live in its memory: N+1 tool
 * turns where the handler suspends after turn N (a durable wait ends the invocation, as an
 * interrupted Lambda would). The runner invokes it again; that invocation replays N turns from the
 * checkpoints and runs turn N+1. Turn times are the first N turns; resume is timed from the
 * suspension to turn N+1's tool step being checkpointed; bytes are the checkpointed operations of
 * the first N turns (and the execution's input).
 */
export async function run(turns: number, _dir: string): Promise<ChildReport> {
  await LocalDurableTestRunner.setupTestEnvironment({ skipTime: true });
  const marks: number[] = [];
  let suspendedAt: number | undefined;
  let resumeMs: number | undefined;
  const runner = new LocalDurableTestRunner({
    handlerFunction: handler(turns + 1, {
      suspendAfter: turns,
      suspended: () => {
        suspendedAt ??= now();
      },
      toolDone: (turn) => {
        if (suspendedAt === undefined) marks.push(now());
        else if (turn === turns) resumeMs ??= now() - suspendedAt;
      },
    }),
  });
  const start = now();
  const execution = await runner.run({ payload: { input: USER_INPUT } });
  const firstN = marks.slice(0, turns);
  if (execution.getResult() !== FINAL_ANSWER || firstN.length !== turns || resumeMs === undefined) {
    throw new Error(`aws-durable: ${execution.getStatus()} after ${marks.length}/${turns} turns`);
  }
  const operations = execution.getOperations().filter((op) => {
    const turn = turnOf(op.getName());
    return turn < turns && !(op.getName() ?? "").startsWith("suspend-");
  });
  const atRest = operations.reduce((sum, op) => sum + bytes(op.getOperationData()), 0);
  const invocations = execution.getInvocations().length;
  await LocalDurableTestRunner.teardownTestEnvironment();
  return {
    system: "aws-durable",
    mode: "run",
    turns,
    turnMs: gaps(start, firstN),
    totalMs: firstN.at(-1)! - start,
    bytesWritten: atRest,
    bytesAtRest: atRest,
    resumeMs,
    maxRssKb: maxRssKb(),
    notes: [
      `${operations.length} operations checkpointed in the local runner's memory (no disk)`,
      `${invocations} invocations; resume = replay of ${turns} turns in the same process`,
    ],
  };
}
