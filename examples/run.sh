#!/usr/bin/env bash
# The examples as a new user meets them: pack runlog as `npm publish` would, install each
# example from that tarball (never from this repository's sources), then run its own checks.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
export CDK_DISABLE_CLI_TELEMETRY=true

rm -rf "$root/.pack" && mkdir -p "$root/.pack"
(cd "$root" && npm pack --silent --pack-destination .pack >/dev/null)
mv "$root"/.pack/runlog-*.tgz "$root/.pack/runlog.tgz"

cd "$root/examples/support-desk"
# A fresh install every time: the tarball changes with every build, and its lock entry with it.
rm -rf node_modules package-lock.json .runlog cdk.out
npm install --no-audit --no-fund --loglevel=error
npm run typecheck
npm test
npm start
npm run cli
npm run client   # a backend calling `runlog serve` through runlog/client
npm run replay   # recorded runs replayed as regression tests: unchanged passes, a changed model fails
npm run synth

cd "$root/examples/triage-desk"
# Agents that compose: a typed ticket, a sub-agent, a handoff, the example's own MCP server on stdio.
rm -rf node_modules package-lock.json .runlog
npm install --no-audit --no-fund --loglevel=error
npm run typecheck
npm test
npm start
