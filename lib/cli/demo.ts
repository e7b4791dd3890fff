import { spawn } from "node:child_process";
import { readFile, rm } from "node:fs/promises";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { openLocal } from "../api/local.ts";
import { progressLine } from "./format.ts";
import type { Io } from "./io.ts";
import { EXIT } from "./usage.ts";

const BIN = fileURLToPath(new URL("../../bin/runlog.js", import.meta.url));
const PROMPT = "Plan my afternoon in Lisbon";

/**
 * The offline tour `npm start` gives: a whole run, then the same run killed in
 * the middle of its tool batch, its resume point, the resume, and the proof
 * that no note was written twice.
 */
export async function demoCommand(options: {
  io: Io;
  env: NodeJS.ProcessEnv;
  dir?: string;
}): Promise<number> {
  const { io, env } = options;
  const dataDir = join(resolve(options.dir ?? env.RUNLOG_DIR ?? ".runlog"), "demo");
  const model = env.OPENAI_API_KEY ? `openai:${env.RUNLOG_DEMO_MODEL ?? "gpt-4.1-mini"}` : "scripted:demo";
  await rm(join(dataDir, "notes.txt"), { force: true });
  const local = await openLocal({
    env: { ...env, RUNLOG_CRASH_AT: "" },
    dataDir,
    observer: { appended: (runId, event) => io.out(`  ${progressLine(runId, event)}`) },
  });
  try {
    io.out(
      `runlog demo — model ${model}${model === "scripted:demo" ? " (offline; set OPENAI_API_KEY to use OpenAI)" : ""}`,
    );
    io.out(`store: ${local.where}\n`);

    io.out("1. A whole run of the demo agent: a weather lookup, two notes written in parallel, an answer.");
    const first = await local.runlog.start({ agent: "demo", input: PROMPT, model });
    io.out(`   → ${first.status}: ${first.output ?? ""}`);
    io.out(`   notes.txt: ${(await readNotes(dataDir)).join(" / ")}\n`);
    await rm(join(dataDir, "notes.txt"), { force: true });

    const runId = `demo-crash-${Date.now().toString(36)}`;
    io.out(`2. The same run in a child process that is killed (exit 137) right after a note is written,`);
    io.out("   before its result reaches the log (RUNLOG_CRASH_AT=tool:after-run@2).");
    const code = await runChild(io, dataDir, env, [
      "run",
      "--dir",
      dataDir,
      "--run-id",
      runId,
      "--model",
      model,
      PROMPT,
    ]);
    io.out(`   → the child exited with code ${code}\n`);

    const point = await local.runlog.resumePoint(runId);
    io.out("3. Its resume point, read from the log alone:");
    io.out(`   ${JSON.stringify(point)}\n`);

    io.out("4. Resume: the interrupted call is answered as interrupted (not run again), the rest goes on.");
    const resumed = await local.runlog.resume({ runId });
    io.out(`   → ${resumed.status}: ${resumed.output ?? ""}\n`);

    const notes = await readNotes(dataDir);
    const twice = notes.filter((note, i) => notes.indexOf(note) !== i);
    io.out(`5. notes.txt after the crash and the resume (${notes.length} lines):`);
    for (const note of notes) io.out(`   ${note}`);
    io.out(
      twice.length === 0
        ? "   no note was written twice."
        : `   A NOTE WAS WRITTEN TWICE: ${twice.join(", ")}`,
    );
    if (twice.length > 0) return EXIT.failed;
    io.out(`\nTry: runlog show ${runId} --dir ${dataDir}`);
    return resumed.status === "completed" ? EXIT.completed : EXIT.failed;
  } finally {
    await local.close();
  }
}

async function readNotes(dataDir: string): Promise<string[]> {
  const text = await readFile(join(dataDir, "notes.txt"), "utf8").catch(() => "");
  return text.split("\n").filter(Boolean);
}

function runChild(io: Io, dataDir: string, env: NodeJS.ProcessEnv, args: string[]): Promise<number> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { ...env, RUNLOG_DIR: dataDir, RUNLOG_CRASH_AT: "tool:after-run@2" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const relay = (chunk: Buffer) => {
      for (const line of chunk.toString().split("\n").filter(Boolean)) io.out(`   │ ${line}`);
    };
    child.stdout.on("data", relay);
    child.stderr.on("data", relay);
    child.on("error", fail);
    child.on("close", (code) => done(code ?? 1));
  });
}
