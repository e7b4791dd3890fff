import { spawn } from "node:child_process";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { openLocal } from "../api/local.ts";
import type { RunEvent } from "../core/events.ts";
import { NAMES } from "../runtime/config.ts";
import type { RunlogConfig } from "../runtime/readConfig.ts";
import { afterResume, atCrash } from "./demoStory.ts";
import { progressLine } from "./format.ts";
import type { Io } from "./io.ts";
import { whenMissing } from "./missing.ts";
import { EXIT } from "./usage.ts";
import { runlogBin } from "./version.ts";

const PROMPT = "Plan my afternoon in Lisbon";
const CRASH_AT = "tool:after-run@2";

/**
 * The offline tour's model: a weather lookup, then one note, then another, then
 * an answer. One call a turn, so the crash point (the second tool to finish
 * running) is always the first note, and the second is not yet asked for.
 */
const TOUR_SCRIPT = {
  turns: [
    { toolCalls: [{ name: "get_weather", arguments: { city: "Lisbon" } }] },
    { toolCalls: [{ name: "write_note", arguments: { text: "Pack sunglasses" } }] },
    { toolCalls: [{ name: "write_note", arguments: { text: "Book a table by the river" } }] },
    {
      text: "I checked today's weather in Lisbon and noted two things for your day out: pack sunglasses, and book a table by the river.",
      stop: "stop",
    },
  ],
};

/**
 * The offline tour `npm start` gives: a whole run, then the same run killed
 * right after a note is written, its resume point, the resume, and what
 * became of each note. Every sentence after the crash is read from the log.
 */
export async function demoCommand(options: {
  io: Io;
  /** Passed on to the child process the tour kills. */
  env: NodeJS.ProcessEnv;
  config: RunlogConfig;
  dir: string;
}): Promise<number> {
  const { io, env, config } = options;
  const dataDir = join(options.dir, "demo");
  const scriptPath = join(dataDir, "tour-script.json");
  const offline = config.openaiApiKey === undefined;
  const model = offline ? `scripted:${scriptPath}` : `openai:${config.demoModel}`;
  // This process is not the one the tour kills: no crash point here, whatever the environment says.
  const local = await openLocal(
    { dataDir, observer: { appended: (runId, event) => io.out(`  ${progressLine(runId, event)}`) } },
    { ...config, crashAt: undefined },
  );
  try {
    // The SQLite store creates the folder when it opens; DynamoDB never touches the disk.
    await mkdir(dataDir, { recursive: true });
    await writeFile(scriptPath, JSON.stringify(TOUR_SCRIPT));
    await rm(join(dataDir, "notes.txt"), { force: true });
    io.out(`runlog demo — model ${offline ? "scripted (offline; set OPENAI_API_KEY to use OpenAI)" : model}`);
    io.out(`store: ${local.where}\n`);

    io.out("1. A whole run of the demo agent: a weather lookup, two notes, an answer.");
    const first = await local.runlog.start({ agent: "demo", input: PROMPT, model });
    io.out(`   → ${first.status}: ${first.output ?? ""}`);
    io.out(`   notes.txt: ${(await readNotes(dataDir)).join(" / ")}\n`);
    await rm(join(dataDir, "notes.txt"), { force: true });

    const runId = `demo-crash-${Date.now().toString(36)}`;
    io.out("2. The same run in a child process that is killed (exit 137) the second time a tool");
    io.out(`   finishes running, before its result reaches the log (${NAMES.crashAt}=${CRASH_AT}).`);
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
    const crashed = await local.runlog.events(runId);
    const crashedAt = crashed.at(-1)?.seq ?? 0;
    io.out(`   → the child exited with code ${code}; its log ends at #${crashedAt}:`);
    for (const line of atCrash(crashed)) io.out(`     ${line}`);
    io.out("");
    if (code !== 137) {
      io.out(`   It did not reach the crash point, so there is nothing to resume.`);
      return EXIT.failed;
    }

    const point = await local.runlog.resumePoint(runId);
    io.out("3. Its resume point, read from the log alone:");
    io.out(
      point.resumable
        ? `   ${point.kind}: ${point.description}\n`
        : `   not resumable: ${point.description}\n`,
    );

    const resumed = await local.runlog.resume({ runId });
    const log = await local.runlog.events(runId);
    const generation = log.find((e) => e.seq > crashedAt && e.type === "resumed");
    io.out(
      `4. The resume${generation?.type === "resumed" ? ` (generation ${generation.generation})` : ""}, as its log tells it:`,
    );
    for (const line of afterResume(log, crashedAt)) io.out(`   ${line}`);
    io.out(`   → ${resumed.status}: ${resumed.output ?? ""}\n`);

    const notes = await readNotes(dataDir);
    io.out(`5. notes.txt after the crash and the resume (${notes.length} line(s)):`);
    const twice = noteCounts(log, notes);
    if (twice.length > 0) {
      io.out(`   A NOTE WAS WRITTEN TWICE: ${twice.join(", ")}`);
      return EXIT.failed;
    }
    io.out(`\nTry: npx runlog show ${runId} --dir ${dataDir}`);
    return resumed.status === "completed" ? EXIT.completed : EXIT.failed;

    function noteCounts(events: readonly RunEvent[], lines: readonly string[]): string[] {
      const asked = noteTexts(events);
      for (const text of asked) {
        const times = lines.filter((line) => line === text).length;
        io.out(
          `   "${text}": ${times === 1 ? "written once" : times === 0 ? "not written" : `written ${times} times`}`,
        );
      }
      return asked.filter((text) => lines.filter((line) => line === text).length > 1);
    }
  } finally {
    await local.close();
  }
}

/** The text of every write_note call the model asked for, in order. */
function noteTexts(events: readonly RunEvent[]): string[] {
  const texts: string[] = [];
  for (const event of events) {
    if (event.type !== "model_response") continue;
    for (const call of event.toolCalls) {
      if (call.name !== "write_note") continue;
      const text = noteText(call.arguments);
      if (text !== undefined && !texts.includes(text)) texts.push(text.replaceAll("\n", " "));
    }
  }
  return texts;
}

/** The text a write_note call asked for; undefined for arguments the tool refused (not JSON, no text). */
function noteText(args: string): string | undefined {
  try {
    const { text } = JSON.parse(args) as { text?: unknown };
    return typeof text === "string" ? text : undefined;
  } catch {
    return undefined;
  }
}

async function readNotes(dataDir: string): Promise<string[]> {
  // No notes file: the demo wrote no note yet.
  const text = await readFile(join(dataDir, "notes.txt"), "utf8").catch(whenMissing(""));
  return text.split("\n").filter(Boolean);
}

async function runChild(io: Io, dataDir: string, env: NodeJS.ProcessEnv, args: string[]): Promise<number> {
  const bin = await runlogBin();
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [bin, ...args], {
      env: { ...env, [NAMES.dataDir]: dataDir, [NAMES.legacyDataDir]: "", [NAMES.crashAt]: CRASH_AT },
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
