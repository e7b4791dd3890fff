/**
 * The CLI's help: each command's usage lines, and the whole help made of them. A command's own
 * `--help` prints its lines only; test/cli/help.test.ts checks that each command's lines name
 * exactly the flags it parses (commandTable.ts and the commands with their own parsers).
 */

/** Each command's usage lines, in the order the whole help lists them. */
export const COMMAND_HELP: Readonly<Record<string, string>> = {
  run: `  runlog run [--agent demo] [--model SPEC] [--run-id ID] [--metadata JSON] [--max-turns N] [--max-tokens N] [--max-cost-usd USD] [--temperature T] [--max-output-tokens N] [--top-p P] [--stop TEXT]... [--run-here] [--json] "prompt" | - | --input-file PATH`,
  resume: `  runlog resume <runId> [--model SPEC] [--max-turns N] [--max-tokens N] [--max-cost-usd USD] [--temperature T] [--max-output-tokens N] [--top-p P] [--stop TEXT]... [--run-here] [--json]`,
  "resume-point": "  runlog resume-point <runId> [--agents MODULE] [--json]",
  show: "  runlog show <runId> [--json]",
  script: `  runlog script <runId> [--out FILE] [--json]
                                   the run's model turns as a scripted-model file (stdout, or FILE):
                                   --model scripted:FILE plays the run again`,
  replay: `  runlog replay <runId>... [--ids-from FILE] --model SPEC [--agents MODULE] [--tools recorded|live]
                [--fail-on-change] [--junit FILE] [--concurrency N] [--json]
                                   each run's inputs again on SPEC under a new run id, tools answered
                                   from the recording (or run: live); prints what changed`,
  ls: "  runlog ls [--status STATUS] [--forks-of RUNID | --children-of RUNID] [--json]",
  send: `  runlog send <runId> "message" | - | --input-file PATH [--idempotency-key KEY] [--run-here] [--json]`,
  fork: `  runlog fork <runId> [--at SEQ] [--id ID] [--model SPEC] [--temperature T] [--max-output-tokens N] [--top-p P] [--stop TEXT]... [--idempotency-key KEY] ["input" | - | --input-file PATH] [--run-here] [--json]`,
  approve:
    "  runlog approve <runId> <callId> [--by WHO] [--reason TEXT] [--idempotency-key KEY] [--run-here] [--json]",
  reject:
    "  runlog reject <runId> <callId> [--by WHO] [--reason TEXT] [--idempotency-key KEY] [--run-here] [--json]",
  cancel: "  runlog cancel <runId> [--by WHO] [--reason TEXT] [--idempotency-key KEY] [--json]",
  sweep: `  runlog sweep [--stale-after SECONDS] [--max-resumes N] [--run-here] [--json]
                                   resume runs whose executor died`,
  redrive: `  runlog redrive [--since DURATION] [--agent NAME] [--dry-run] [--run-here] [--json]
                                   resume runs that failed for a retryable reason (after an outage)`,
  demo: `  runlog demo [--run-here]         run the offline demo (npm start in runlog's repository)`,
  serve: `  runlog serve [--port 8787] [--token-file PATH] [--allow-scripted] [--tool-group NAME=TOOL,TOOL]… [--run-here]
                                   serve the HTTP API on 127.0.0.1 to you only: open the printed
                                   URL (it carries the token); runs execute in this process, each
                                   tool group's calls routed as a stack's toolGroups route them
  runlog serve --table NAME --state-machine ARN [--region R]   the same over a deployed stack
                                   (its outputs), with your AWS credentials; runs execute there`,
  config: `  runlog config from-stack <StackName> [--region R | --outputs-file FILE] [--prefix P] [--out FILE]
                                   write the CLI's configuration for a deployed stack (an env file
                                   of RUNLOG_TABLE, RUNLOG_STATE_MACHINE_ARN, AWS_REGION) from its
                                   outputs: CloudFormation's, or a saved cdk deploy --outputs-file`,
  version: "  runlog version                   print runlog's version (also --version)",
};

const ABOUT = `Every command takes --dir DIR (default $RUNLOG_DIR or ./.runlog); only run, demo and serve
create it. --agents MODULE (default $RUNLOG_AGENTS) serves your own agents: a module exporting
\`agents\`, e.g. src/agents.ts; without it, the built-in demo agent.
--url URL (default $RUNLOG_URL) calls runlog's HTTP API instead of a store (the same output and
exit codes; a deployed stack's HttpApiUrl is signed with your AWS credentials, SigV4),
--token TOKEN (default $RUNLOG_TOKEN) sends a bearer token instead (runlog serve's, a JWT).
With a deployed table ($RUNLOG_TABLE on AWS), run, resume, send, fork, approve, reject, sweep
and redrive start its state machine ($RUNLOG_STATE_MACHINE_ARN) instead of running steps here;
--run-here runs them in this process.
A prompt, message or input given as - is read from stdin.
Models: scripted:demo, scripted:FILE (a JSON script), openai:MODEL, bedrock:MODEL_ID.
Exit codes: 0 completed, 1 not completed or failed, 2 bad usage or input (nothing written:
an unknown run, an unusable data dir, an id that names another run), 3 paused for approval,
137 injected crash.`;

/** `runlog help`: every command's usage, then what they share. */
export const HELP = `runlog — durable, resumable AI-agent runs

Usage:
${Object.values(COMMAND_HELP).join("\n")}

${ABOUT}`;

/** `runlog <command> --help`: that command's usage only, and where the rest is. */
/** Whether `runlog help COMMAND` has usage lines for that command (`help help` is the whole help). */
export const hasHelp = (command: string): boolean =>
  command === "help" || Object.hasOwn(COMMAND_HELP, command);

export function commandHelp(command: string): string {
  const lines = Object.hasOwn(COMMAND_HELP, command) ? COMMAND_HELP[command] : undefined;
  if (lines === undefined) return HELP;
  return `Usage:
${lines}

The flags most commands share (--dir, --agents, --url, --token), input from stdin, models and
exit codes: runlog help`;
}
