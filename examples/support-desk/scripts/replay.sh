#!/usr/bin/env bash
# Recorded runs as regression tests (docs/guides/replay.md): record two runs, export their ids,
# replay them on the model they ran on (nothing changes, exit 0, no refund issued again), then on
# a changed model (refund-v2.json refunds another amount): --fail-on-change exits 1 and the JUnit
# report has one case per run.
set -euo pipefail
cd "$(dirname "$0")/.."
export RUNLOG_AGENTS=src/agents.ts
# A data dir of its own: the recordings, the replays and the refunds the tools write.
RUNLOG_DIR="$(mktemp -d)"
export RUNLOG_DIR
trap 'rm -rf "$RUNLOG_DIR"' EXIT
refunds() { if [ -f "$RUNLOG_DIR/refunds.jsonl" ]; then wc -l < "$RUNLOG_DIR/refunds.jsonl"; else echo 0; fi; }

# Record: a refund a person approves, and a question the project's own model answers.
set +e
npx runlog run --agent support --model scripted:scripts/refund.json --run-id kettle-refund \
  "My kettle (order A-1001) arrived broken. Can I get my money back?" >/dev/null
code=$?
set -e
[ "$code" = 3 ] || { echo "expected exit 3 (paused for approval), got $code" >&2; exit 1; }
npx runlog approve kettle-refund call_1_0 --by "$(whoami)" --reason "receipt checked" >/dev/null
npx runlog run --agent support --model shop:desk --run-id where-is-a1002 "Where is my order A-1002?" >/dev/null
[ "$(refunds)" = 1 ] || { echo "expected the recorded refund, found $(refunds)" >&2; exit 1; }

# Export the test set: one run id a line.
npx runlog ls --json | node -e '
  let text = ""; process.stdin.on("data", (d) => (text += d)).on("end", () =>
    console.log(JSON.parse(text).runs.map((r) => r.runId).sort().join("\n")));' > "$RUNLOG_DIR/replay-ids.txt"

# The same model again: no change, exit 0, and the refund is answered from the recording, not issued.
npx runlog replay kettle-refund --model scripted:scripts/refund.json --fail-on-change
npx runlog replay where-is-a1002 --model shop:desk --fail-on-change
[ "$(refunds)" = 1 ] || { echo "a replay issued a refund again: $(refunds) refunds" >&2; exit 1; }

# A changed model: every run of the set changes, --fail-on-change exits 1, the JUnit file says so.
set +e
npx runlog replay --ids-from "$RUNLOG_DIR/replay-ids.txt" --model scripted:scripts/refund-v2.json \
  --fail-on-change --junit "$RUNLOG_DIR/replay.xml"
code=$?
set -e
[ "$code" = 1 ] || { echo "expected exit 1 (changed) from --fail-on-change, got $code" >&2; exit 1; }
[ -s "$RUNLOG_DIR/replay.xml" ] || { echo "no JUnit report written" >&2; exit 1; }
cases=$(grep -c "<testcase " "$RUNLOG_DIR/replay.xml")
[ "$cases" = 2 ] || { echo "expected 2 test cases in the JUnit report, got $cases" >&2; exit 1; }
[ "$(refunds)" = 1 ] || { echo "a replay issued a refund: $(refunds) refunds" >&2; exit 1; }
echo "replay: unchanged runs pass, a changed model fails the check as it should"
