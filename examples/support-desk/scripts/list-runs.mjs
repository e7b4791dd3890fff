// @ts-check
// Plain JavaScript gets runlog's types too: `tsc` checks this file (checkJs in tsconfig.json).
import { openLocal } from "runlog";
import { agents } from "../src/agents.ts";

const local = await openLocal({ agents, dataDir: ".runlog" });
try {
  const { runs } = await local.runlog.list({ limit: 20 });
  for (const run of runs)
    console.log(`${run.runId}  ${run.status.padEnd(10)}  ${run.agent}  ${run.lastSeq} events`);
} finally {
  await local.close();
}
