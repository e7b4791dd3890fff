/**
 * The commands that steer one run: `send`, `fork`, `approve`, `reject` and `cancel`, with the
 * flags they share (`--idempotency-key`, and `--by` and `--reason` for a decision).
 */
import { type Command, input, MODEL, one, optional, requiredInput, str } from "./command.ts";
import { reportOutcome } from "./commands.ts";
import { INPUT_FILE } from "./input.ts";
import { parseSettings, SETTINGS, type Values } from "./settingsFlags.ts";
import { UsageError } from "./usage.ts";

/** Whom the caller acts for (`--by`, recorded as `onBehalfOf`) and why. */
const actor = (values: Values) => ({
  ...optional("by", str(values, "by")),
  ...optional("reason", str(values, "reason")),
});

function parseSeq(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value))
    throw new UsageError(`fork: --at takes a seq (a whole number), got ${JSON.stringify(value)}`);
  return Number(value);
}

/** `--idempotency-key KEY`: recorded on the event the command writes, so running it again writes nothing more. */
const KEY = { "idempotency-key": { type: "string" } } as const;
const DECISION = { by: { type: "string" }, reason: { type: "string" }, ...KEY } as const;
const keyed = (values: Values) => optional("idempotencyKey", str(values, "idempotency-key"));

/** `send`, `fork`, `approve`, `reject` and `cancel`. */
export const STEER_COMMANDS = {
  send: {
    options: { ...INPUT_FILE, ...KEY },
    positionals: { min: 1, max: 2, names: '<runId> "message"' },
    run: async (context, values, [runId, message]) => {
      const text = await requiredInput("send", "message", values, message);
      return reportOutcome(context, await context.runs.send(runId!, text, keyed(values)));
    },
  },
  fork: {
    options: { at: { type: "string" }, id: { type: "string" }, ...MODEL, ...SETTINGS, ...INPUT_FILE, ...KEY },
    positionals: { min: 1, max: 2, names: '<runId> ["input"]' },
    run: async (context, values, [runId, argument]) => {
      const atSeq = parseSeq(str(values, "at"));
      const text = await input("input", values, argument);
      const outcome = await context.runs.fork({
        runId: runId!,
        ...(atSeq === undefined ? {} : { atSeq }),
        ...optional("input", text),
        ...optional("forkId", str(values, "id")),
        ...optional("model", str(values, "model")),
        ...parseSettings("fork", values),
        ...keyed(values),
      });
      return reportOutcome(
        context,
        outcome,
        context.json ? undefined : `forked ${runId} into ${outcome.runId}`,
      );
    },
  },
  approve: {
    options: DECISION,
    positionals: { min: 2, max: 2, names: "<runId> <callId>" },
    run: async (context, values, [runId, callId]) =>
      reportOutcome(context, await context.runs.decide(runId!, callId!, true, actor(values), keyed(values))),
  },
  reject: {
    options: DECISION,
    positionals: { min: 2, max: 2, names: "<runId> <callId>" },
    run: async (context, values, [runId, callId]) =>
      reportOutcome(context, await context.runs.decide(runId!, callId!, false, actor(values), keyed(values))),
  },
  cancel: {
    options: DECISION,
    positionals: one("<runId>"),
    run: async (context, values, [runId]) => {
      const outcome = await context.runs.cancel(runId!, actor(values), keyed(values));
      reportOutcome(context, outcome);
      return 0;
    },
  },
} satisfies Record<string, Command>;
