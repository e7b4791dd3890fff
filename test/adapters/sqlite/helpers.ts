import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll } from "vitest";
import type { DatabaseSync } from "../../../lib/adapters/sqlite/nodeSqlite.ts";
import { SqliteEventStore, sqliteFile } from "../../../lib/adapters/sqlite/sqliteEventStore.ts";
import { openRawSqlite } from "../../contract/sqliteRaw.ts";

/** A fresh store file in its own temporary folder. */
export function tempStoreFile(label: string): string {
  return sqliteFile(mkdtempSync(join(tmpdir(), `runlog-sqlite-${label}-`)));
}

/**
 * A store on a fresh file, and a raw connection to the same file to read (or spoil) the rows it
 * writes; both closed after the test file's tests.
 */
export function storeWithRawFile(label: string): { store: SqliteEventStore; raw: DatabaseSync } {
  const store = new SqliteEventStore({ file: tempStoreFile(label) });
  const raw = openRawSqlite(store.file);
  afterAll(async () => {
    raw.close();
    await store.close();
  });
  return { store, raw };
}

export interface Worker {
  child: ChildProcessWithoutNullStreams;
  lines: string[];
  /** Resolves with the first stdout line that passes `match`. */
  line(match: (line: string) => boolean): Promise<string>;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
}

/** Start fixtures/worker.ts as its own OS process on `file`. */
export function startWorker(file: string, ...args: string[]): Worker {
  return startScript(fileURLToPath(new URL("./fixtures/worker.ts", import.meta.url)), file, ...args);
}

/** Start a TypeScript script as its own OS process, reading its stdout line by line. */
export function startScript(script: string, ...args: string[]): Worker {
  const child = spawn(process.execPath, ["--import", "tsx", script, ...args], { stdio: "pipe" });
  const lines: string[] = [];
  const waiting: { match: (line: string) => boolean; resolve: (line: string) => void }[] = [];
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
    const parts = stdout.split("\n");
    stdout = parts.pop() ?? "";
    for (const line of parts) {
      lines.push(line);
      for (const w of waiting.filter((w) => w.match(line))) {
        waiting.splice(waiting.indexOf(w), 1);
        w.resolve(line);
      }
    }
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>(
    (resolve) => child.on("close", (code, signal) => resolve({ code, signal, stderr })),
  );
  const line = (match: (line: string) => boolean) =>
    new Promise<string>((resolve, reject) => {
      const found = lines.find(match);
      if (found !== undefined) return resolve(found);
      waiting.push({ match, resolve });
      void exit.then(({ stderr }) => reject(new Error(`the worker exited first: ${stderr}`)));
    });
  return { child, lines, line, exit };
}
