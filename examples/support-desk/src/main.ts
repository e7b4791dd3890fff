// Runs the support agent through runlog's library API, offline: a scripted model, the embedded store.
// `npm start`; with OPENAI_API_KEY set, `MODEL=openai:gpt-4.1-mini npm start` asks a real model.
import { openLocal, type RunOutcome } from "runlog";
import { agents } from "./agents.ts";

const model = process.env.MODEL ?? `scripted:${new URL("../scripts/refund.json", import.meta.url).pathname}`;
const local = await openLocal({ agents, dataDir: ".runlog" });
try {
  const { runlog } = local;
  let outcome: RunOutcome = await runlog.start({
    agent: "support",
    model,
    input: "My kettle (order A-1001) arrived broken. Can I get my money back?",
  });
  console.log(`run ${outcome.runId}: ${outcome.status}`);
  while (outcome.status === "paused") {
    const point = await runlog.resumePoint(outcome.runId);
    if (point.resumable || point.reason !== "awaiting_approval") break;
    for (const call of point.waitingToolCalls ?? []) {
      console.log(`approving ${call.name} ${call.arguments}`);
      outcome = await runlog.approve(outcome.runId, call.id, { by: "example", reason: "receipt checked" });
    }
  }
  console.log(`${outcome.status}: ${outcome.output}`);
  if (outcome.status !== "completed") process.exitCode = 1;
} finally {
  await local.close();
}
