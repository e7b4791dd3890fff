import { chmodSync, mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { dataDir } from "../../lib/cli/dataDir.ts";
import { openRawSqlite } from "../contract/sqliteRaw.ts";
import { cleanup, tempDataDir } from "../support/cli.ts";
import { cli } from "./support.ts";

/** Commands that start no run leave a data dir as they found it (mode, contents). */
const root = tempDataDir("cli-datadir-modes");
afterAll(() => cleanup(root));
const mode = (path: string) => statSync(path).mode & 0o777;

/** A dir of the user's own, 0755, holding a file of theirs and no store. */
function project(name: string): string {
  const path = join(root, name);
  mkdirSync(path);
  writeFileSync(join(path, "README"), "mine\n");
  chmodSync(path, 0o755);
  return path;
}

describe("a command that starts no run, on an existing dir", () => {
  it("that holds no store: no runs or not found, and the dir keeps its mode and contents", async () => {
    const proj = project("proj");
    const show = await cli(["show", "abc"], { dir: proj });
    expect([show.code, show.stderr]).toEqual([2, "runlog: run abc not found\n"]);
    const ls = await cli(["ls"], { dir: proj });
    expect([ls.code, ls.stdout, ls.stderr]).toEqual([0, `no runs in ${proj}\n`, ""]);
    for (const command of [
      ["resume", "abc"],
      ["resume-point", "abc"],
      ["cancel", "abc"],
      ["fork", "abc"],
    ]) {
      const result = await cli(command, { dir: proj });
      expect([command[0], result.code, result.stderr]).toEqual([
        command[0],
        2,
        "runlog: run abc not found\n",
      ]);
    }
    const swept = await cli(["sweep", "--json"], { dir: proj });
    expect(swept.code, swept.stderr).toBe(0);
    expect(mode(proj)).toBe(0o755);
    expect(readdirSync(proj)).toEqual(["README"]);
  });

  it("that holds a store: its runs, and the dir keeps its mode, with a warning", async () => {
    const dir = join(root, "store");
    const run = await cli(["run", "--run-id", "r1", "Plan my afternoon", "--json"], { dir });
    expect(run.code, run.stderr).toBe(0);
    chmodSync(dir, 0o755);
    const ls = await cli(["ls", "--json"], { dir });
    expect(ls.code, ls.stderr).toBe(0);
    expect(JSON.parse(ls.stdout).runs.map((head: { runId: string }) => head.runId)).toEqual(["r1"]);
    expect(ls.stderr).toBe(
      `runlog: data dir ${dir} is mode 0755, open to other users; left as it is (a command that starts a run sets it to 0700)\n`,
    );
    const show = await cli(["show", "r1", "--json"], { dir });
    expect(show.code, show.stderr).toBe(0);
    expect(mode(dir)).toBe(0o755);
    // A command that starts a run makes it private, as before.
    const second = await cli(["run", "--run-id", "r2", "Plan my evening", "--json"], { dir });
    expect(second.code, second.stderr).toBe(0);
    expect(mode(dir)).toBe(0o700);
  });

  it("dataDir itself: no store and not to be created is exists false, nothing written or changed", async () => {
    const proj = project("proj-unit");
    const warnings: string[] = [];
    const found = await dataDir(proj, ".runlog", { create: false, warn: (line) => warnings.push(line) });
    expect(found).toEqual({ path: proj, exists: false });
    expect(warnings).toEqual([]);
    expect(mode(proj)).toBe(0o755);
    expect(readdirSync(proj)).toEqual(["README"]);
  });
});

describe("a data dir whose store a newer runlog wrote", () => {
  it("is exit 2 naming the file and what to do, and the file is left as it was", async () => {
    const dir = join(root, "newer");
    const run = await cli(["run", "--run-id", "r1", "Plan my afternoon", "--json"], { dir });
    expect(run.code, run.stderr).toBe(0);
    const raw = openRawSqlite(join(dir, "runlog.db"));
    raw.exec("PRAGMA user_version = 99");
    raw.close();
    for (const args of [["ls"], ["show", "r1"], ["run", "hi"]]) {
      const result = await cli(args, { dir });
      expect([args[0], result.code], result.stderr).toEqual([args[0], 2]);
      expect(result.stderr).toMatch(/holds runlog store schema version 99; .*upgrade runlog/);
    }
    const check = openRawSqlite(join(dir, "runlog.db"));
    expect(Number(check.prepare("PRAGMA user_version").get()?.user_version)).toBe(99);
    expect(Number(check.prepare("SELECT count(*) AS n FROM heads").get()?.n)).toBe(1);
    check.close();
  });
});
