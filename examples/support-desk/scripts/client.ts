// A backend calling a running runlog over HTTP through `runlog/client`: start `runlog serve`, start
// the support agent's run, approve the refund it pauses for, follow the run to its answer.
// Against a deployed stack the same code takes `{ url: API_URL, auth: { type: "sigv4" } }`.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { createClient } from "runlog/client";

/** `runlog serve` on a free port; resolves with the URL and token it prints. */
async function serve(): Promise<{ url: string; token: string; server: ChildProcess }> {
  // The installed CLI itself (not through npx, which would keep it from our signal).
  const bin = fileURLToPath(new URL("../node_modules/runlog/bin/runlog.js", import.meta.url));
  const server = spawn(
    process.execPath,
    [bin, "serve", "--port", "0", "--allow-scripted", "--agents", "src/agents.ts", "--dir", ".runlog"],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  return new Promise((resolve, reject) => {
    let listening = false;
    createInterface({ input: server.stdout! }).on("line", (line) => {
      const printed = /listening on (http:\/\/[^/]+)\/\?token=(\S+)/.exec(line);
      if (printed && !listening) {
        listening = true;
        resolve({ url: printed[1]!, token: printed[2]!, server });
      } else console.log(`  serve: ${line}`);
    });
    server.on(
      "exit",
      (code) => listening || reject(new Error(`runlog serve exited (${code}) before it listened`)),
    );
  });
}

const { url, token, server } = await serve();
try {
  const client = createClient({ url, auth: { type: "bearer", token } });
  const model = `scripted:${new URL("./refund.json", import.meta.url).pathname}`;
  const input = "My kettle (order A-1001) arrived broken. Can I get my money back?";
  const { runId } = await client.start({ agent: "support", model, input, metadata: { ticket: "T-17" } });
  console.log(`started ${runId} through ${url}`);
  for await (const event of client.follow(runId)) {
    if (event.type === "paused") {
      // The calls that wait; a page carries a big event truncated, so read it whole then.
      const paused = "calls" in event ? event : await client.event(runId, event.seq);
      for (const call of paused.type === "paused" ? paused.calls : []) {
        console.log(`approving ${call.name} ${call.arguments}`);
        await client.approve(runId, call.id, { by: "example-backend", reason: "receipt checked" });
      }
    }
    if (event.type === "model_response" && "stop" in event && event.stop === "stop") break;
  }
  // The answer is logged; the run completes as its execution finishes.
  let outcome = await client.get(runId);
  while (outcome.status === "running") {
    await sleep(50);
    outcome = await client.get(runId);
  }
  console.log(`${outcome.status}: ${outcome.status === "completed" ? outcome.output : ""}`);
  if (outcome.status !== "completed") process.exitCode = 1;
} finally {
  server.kill("SIGTERM");
  await once(server, "exit");
}
