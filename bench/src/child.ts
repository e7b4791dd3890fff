/**
 * One measurement in its own process, so peak memory belongs to one system and one N:
 * `child.ts <system> <run|resume> <turns> <dir>`. Prints one JSON line (a ChildReport); `run` ends
 * with exit 137 right after turn N is durable, leaving the run interrupted for `resume`.
 */
import { writeSync } from "node:fs";
import type { ChildReport } from "./workload.ts";

type Measure = (turns: number, dir: string) => Promise<ChildReport>;
type Driver = { run: Measure; resume?: Measure };

const DRIVERS: Record<string, () => Promise<Driver>> = {
  runlog: () => import("./systems/runlog.ts"),
  langgraph: () => import("./systems/langgraph.ts"),
  "openai-agents": () => import("./systems/openaiAgents.ts"),
  "aws-durable": () => import("./systems/awsDurable.ts"),
};

const [system = "", mode = "", turnsText = "", dir = ""] = process.argv.slice(2);
const load = DRIVERS[system];
if (!load || !["run", "resume"].includes(mode) || !/^\d+$/.test(turnsText) || !dir) {
  process.stderr.write(`usage: child.ts <${Object.keys(DRIVERS).join("|")}> <run|resume> <turns> <dir>\n`);
  process.exit(2);
}
const driver = await load();
const measure = driver[mode as keyof Driver];
if (!measure) {
  process.stderr.write(`${system} has no ${mode} step\n`);
  process.exit(2);
}
const report = await measure(Number(turnsText), dir);
writeSync(1, `${JSON.stringify(report)}\n`);
// Some libraries keep handles open (clients, timers); the measurement is done.
process.exit(0);
