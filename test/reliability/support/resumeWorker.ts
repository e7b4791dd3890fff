/**
 * A separate OS process resuming one run through the library:
 *   resumeWorker.ts <dataDir> <runId>
 * opens the store, prints "ready", waits for a stdin line "go" (so that many
 * workers race from the same moment), resumes, and prints one line:
 * "won <status>", "nothing <status>" or "lost <error name>: <message>".
 */
import { createInterface } from "node:readline";
import { openLocal } from "../../../lib/api/local.ts";
import { testEnv } from "../../support/cli.ts";

const [dataDir, runId] = process.argv.slice(2);
if (!dataDir || !runId) throw new Error("usage: resumeWorker.ts <dataDir> <runId>");
const say = (line: string) => process.stdout.write(`${line}\n`);
const local = await openLocal({ dataDir, env: testEnv() });
say("ready");
for await (const line of createInterface({ input: process.stdin })) if (line === "go") break;
try {
  const outcome = await local.runlog.resume({ runId });
  say(`${outcome.resume.resumed ? "won" : "nothing"} ${outcome.status}`);
} catch (error) {
  say(`lost ${(error as Error).name}: ${(error as Error).message.replace(/\s+/g, " ")}`);
} finally {
  await local.close();
}
