import { type ParseArgsConfig, parseArgs } from "node:util";
import { IdTakenError, InvalidInputError, NotFoundError } from "../core/errors.ts";

/** Bad command-line usage: exit code 2, with the message saying what was wrong. */
export class UsageError extends InvalidInputError {}

export const EXIT = { completed: 0, failed: 1, usage: 2, paused: 3 } as const;

/**
 * Exit code for an error: 2 when what the caller asked for is wrong and nothing
 * was written (bad usage or input, an unknown run, an unusable data dir, an id
 * the caller chose that names another run), 1 when the work failed.
 */
export function exitCodeFor(error: unknown): number {
  const callers =
    error instanceof InvalidInputError || error instanceof NotFoundError || error instanceof IdTakenError;
  return callers ? EXIT.usage : EXIT.failed;
}

/** Flags every command takes. */
export const COMMON = {
  dir: { type: "string" },
  agents: { type: "string" },
  json: { type: "boolean", default: false },
  help: { type: "boolean", short: "h", default: false },
} as const;

/** Flags of the commands that read and steer runs: the API to call instead of a store, and its token. */
export const REMOTE = {
  url: { type: "string" },
  token: { type: "string" },
} as const;

/**
 * Parse one command's flags strictly (an unknown flag or a missing value is a
 * UsageError) and check how many positional arguments it got.
 */
export function parseCommand<T extends ParseArgsConfig>(
  command: string,
  config: T,
  positionals: { min: number; max: number; names: string },
): ReturnType<typeof parseArgs<T>> {
  let parsed: ReturnType<typeof parseArgs<T>>;
  try {
    parsed = parseArgs(config);
  } catch (error) {
    throw new UsageError(`${command}: ${(error as Error).message.split("\n")[0]}`);
  }
  const count = parsed.positionals.length;
  const help = (parsed.values as { help?: boolean }).help === true;
  if (!help && (count < positionals.min || count > positionals.max)) {
    throw new UsageError(`${command}: expected ${positionals.names}, got ${count} argument(s)`);
  }
  return parsed;
}

export const HELP = `runlog — durable, resumable AI-agent runs

Usage:
  runlog run [--agent demo] [--model SPEC] [--run-id ID] [--metadata JSON] [--max-turns N] [--max-tokens N] [--max-cost-usd USD] [--temperature T] [--max-output-tokens N] [--top-p P] [--stop TEXT]... [--json] "prompt" | - | --input-file PATH
  runlog resume <runId> [--model SPEC] [--max-turns N] [--max-tokens N] [--max-cost-usd USD] [--temperature T] [--max-output-tokens N] [--top-p P] [--stop TEXT]... [--json]
  runlog resume-point <runId> [--json]
  runlog show <runId> [--json]
  runlog script <runId> [--out FILE] [--json]
                                   the run's model turns as a scripted-model file (stdout, or FILE):
                                   --model scripted:FILE plays the run again
  runlog replay <runId>... [--ids-from FILE] --model SPEC [--tools recorded|live] [--fail-on-change]
                [--junit FILE] [--concurrency N] [--json]
                                   each run's inputs again on SPEC under a new run id, tools answered
                                   from the recording (or run: live); prints what changed
  runlog ls [--status STATUS] [--forks-of RUNID | --children-of RUNID] [--json]
  runlog send <runId> "message" | - | --input-file PATH [--idempotency-key KEY] [--json]
  runlog fork <runId> [--at SEQ] [--id ID] [--model SPEC] [--temperature T] [--max-output-tokens N] [--top-p P] [--stop TEXT]... [--idempotency-key KEY] ["input" | - | --input-file PATH] [--json]
  runlog approve <runId> <callId> [--by WHO] [--reason TEXT] [--idempotency-key KEY] [--json]
  runlog reject <runId> <callId> [--by WHO] [--reason TEXT] [--idempotency-key KEY] [--json]
  runlog cancel <runId> [--by WHO] [--reason TEXT] [--idempotency-key KEY] [--json]
  runlog sweep [--stale-after SECONDS] [--max-resumes N] [--json]   resume runs whose executor died
  runlog redrive [--since DURATION] [--agent NAME] [--dry-run] [--json]
                                   resume runs that failed for a retryable reason (after an outage)
  runlog demo                      run the offline demo (what npm start does)
  runlog serve [--port 8787] [--token-file PATH] [--allow-scripted] [--tool-group NAME=TOOL,TOOL]…
                                   serve the HTTP API on 127.0.0.1 to you only: open the printed
                                   URL (it carries the token); runs execute in this process, each
                                   tool group's calls routed as a stack's toolGroups route them
  runlog serve --table NAME --state-machine ARN [--region R]   the same over a deployed stack
                                   (its outputs), with your AWS credentials; runs execute there
  runlog config from-stack <StackName> [--region R | --outputs-file FILE] [--prefix P] [--out FILE]
                                   write the CLI's configuration for a deployed stack (an env file
                                   of RUNLOG_TABLE, RUNLOG_STATE_MACHINE_ARN, AWS_REGION) from its
                                   outputs: CloudFormation's, or a saved cdk deploy --outputs-file
  runlog version                   print runlog's version (also --version)

Every command takes --dir DIR (default $RUNLOG_DIR or ./.runlog); only run, demo and serve
create it. --agents MODULE (default $RUNLOG_AGENTS) serves your own agents: a module exporting
\`agents\`, e.g. src/agents.ts; without it, the built-in demo agent.
--url URL (default $RUNLOG_URL) calls runlog's HTTP API instead of a store (the same output and
exit codes; a deployed stack's HttpApiUrl is signed with your AWS credentials, SigV4),
--token TOKEN (default $RUNLOG_TOKEN) sends a bearer token instead (runlog serve's, a JWT).
With a deployed table ($RUNLOG_TABLE on AWS), run, resume, send, fork, approve, reject, sweep
and redrive start its state machine ($RUNLOG_STATE_MACHINE_ARN) instead of running steps here;
--run-here runs them in this process.
A prompt, message or input given as - is read from stdin.
Models: scripted:demo, scripted:FILE (a JSON script), openai:MODEL.
Exit codes: 0 completed, 1 not completed or failed, 2 bad usage or input (nothing written:
an unknown run, an unusable data dir, an id that names another run), 3 paused for approval,
137 injected crash.`;
