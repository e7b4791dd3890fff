#!/usr/bin/env bash
# The same agent from the command line: start a run (it pauses for the refund's approval),
# read where it stopped, approve the call, and show the log.
set -euo pipefail
cd "$(dirname "$0")/.."
export RUNLOG_AGENTS=src/agents.ts   # the module exporting `agents` (or pass --agents to each command)

set +e
out=$(npx runlog run --agent support --model scripted:scripts/refund.json --json \
  "My kettle (order A-1001) arrived broken. Can I get my money back?")
code=$?
set -e
[ "$code" = 3 ] || { echo "expected exit 3 (paused for approval), got $code: $out" >&2; exit 1; }
run=$(node -p 'JSON.parse(process.argv[1]).runId' "$out")

npx runlog resume-point "$run"
npx runlog approve "$run" call_1_0 --by "$(whoami)" --reason "receipt checked"
npx runlog show "$run"

# The same agent on this project's own model (src/models.ts), exported beside the agents.
answer=$(npx runlog run --agent support --model shop:desk --json "Where is my order A-1002?")
node -e 'const o = JSON.parse(process.argv[1]); if (o.status !== "completed" || !o.output.startsWith("desk here")) { console.error("own model run:", o); process.exit(1); }' "$answer"
