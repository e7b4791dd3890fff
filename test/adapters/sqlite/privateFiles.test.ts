import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { SqliteConnection } from "../../../lib/adapters/sqlite/connection.ts";
import { SqliteEventStore } from "../../../lib/adapters/sqlite/sqliteEventStore.ts";
import { started } from "./support.ts";

/** The store's files are the owner's only: another local user cannot read a run (issue 24). */
const root = mkdtempSync(join(tmpdir(), "runlog-private-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const mode = (path: string) => statSync(path).mode & 0o777;
let dirs = 0;

function open(file: string) {
  const warnings: string[] = [];
  const connection = new SqliteConnection({ file, warn: (line) => warnings.push(line) });
  return { connection, warnings };
}

describe("the SQLite store's files", () => {
  it("are created 0600 (database, -wal, -shm), even under umask 0, and silently", () => {
    const file = join(root, `d${++dirs}`, "runlog.db");
    const umask = process.umask(0);
    try {
      const { connection, warnings } = open(file);
      for (const path of [file, `${file}-wal`, `${file}-shm`])
        expect([path, mode(path)]).toEqual([path, 0o600]);
      expect(mode(join(root, `d${dirs}`))).toBe(0o700);
      expect(warnings).toEqual([]);
      connection.close();
    } finally {
      process.umask(umask);
    }
  });

  it("are tightened to 0600 on open when wider, with one warning naming the file and its old mode", () => {
    const file = join(root, `loose-${++dirs}.db`);
    open(file).connection.close();
    chmodSync(file, 0o644);
    const { connection, warnings } = open(file);
    expect(mode(file)).toBe(0o600);
    expect(warnings).toEqual([`runlog: ${file} was mode 0644, readable by other users; set to 0600`]);
    connection.close();
  });

  it("a loose sidecar of a store open elsewhere is tightened too", () => {
    const file = join(root, `side-${++dirs}.db`);
    const first = open(file).connection;
    chmodSync(`${file}-wal`, 0o666);
    const { connection, warnings } = open(file);
    expect(mode(`${file}-wal`)).toBe(0o600);
    expect(warnings).toEqual([`runlog: ${file}-wal was mode 0666, readable by other users; set to 0600`]);
    connection.close();
    first.close();
  });
});

/** Running as root: another user's process can be started (as nobody) to open a store root owns. */
const AS_ROOT = process.getuid?.() === 0;
const NOBODY = 65534;

describe("another user's store files", () => {
  it.skipIf(!AS_ROOT)(
    "that this user may not tighten are used all the same, with a warning naming the file and who can",
    async () => {
      // Under /tmp itself: the tests' own temporary folder is root's only, and nobody could not enter it.
      const shared = mkdtempSync("/tmp/runlog-shared-");
      chmodSync(shared, 0o777);
      const file = join(shared, "runlog.db");
      const store = new SqliteEventStore({ file });
      await store.createRun(started("r"));
      await store.close();
      chmodSync(file, 0o666);
      const worker = fileURLToPath(new URL("./fixtures/worker.ts", import.meta.url));
      const out = spawnSync(process.execPath, ["--import", "tsx", worker, file, "read", "r"], {
        encoding: "utf8",
        uid: NOBODY,
        gid: NOBODY,
        cwd: fileURLToPath(new URL("../../..", import.meta.url)),
        env: { ...process.env, TMPDIR: shared },
      });
      try {
        expect([out.status, out.stdout], out.stderr).toEqual([0, "1\n"]);
        expect(out.stderr).toContain(
          `runlog: ${file} is mode 0666, readable by other users; cannot set 0600: it belongs to another user, who can (chmod 600)`,
        );
        expect(mode(file)).toBe(0o666);
      } finally {
        rmSync(shared, { recursive: true, force: true });
      }
    },
  );
});
