// Triages three customer messages through runlog's library API, offline: the desk's rule-based
// models (src/models), the shop's MCP server on stdio, the embedded store in .runlog/. `npm start`.
import { openLocal } from "runlog";
import { agents, models } from "./agents.ts";
import { SAMPLE_TICKETS, Ticket } from "./ticket.ts";
import { trailOf } from "./trail.ts";

const local = await openLocal({ agents, models, dataDir: ".runlog" });
try {
  const { runlog } = local;
  for (const [kind, input] of Object.entries(SAMPLE_TICKETS)) {
    console.log(`\n[${kind}] ${input}`);
    const outcome = await runlog.start<Ticket>({ agent: "triage", input });
    const trail = trailOf(await runlog.events(outcome.runId));
    console.log(`run ${outcome.runId}: ${outcome.status}, answered by ${trail.agent}`);
    for (const child of trail.children) {
      const childTrail = trailOf(await runlog.events(child));
      const used = childTrail.mcpCalls.length > 0 ? `, which called ${childTrail.mcpCalls.join(", ")}` : "";
      console.log(`  asked a sub-agent: child run ${child} of ${childTrail.agent}${used}`);
    }
    for (const transfer of trail.transfers) console.log(`  handed off: ${transfer}`);
    for (const tool of trail.mcpCalls) console.log(`  called MCP tool ${tool}`);
    // The outcome is typed already; parsing again shows the value is exactly a Ticket.
    const ticket = Ticket.parse(outcome.output);
    console.log(`  ticket: ${JSON.stringify(ticket, null, 2).replaceAll("\n", "\n  ")}`);
    if (outcome.status !== "completed") process.exitCode = 1;
  }
} finally {
  await local.close();
}
