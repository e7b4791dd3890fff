import {
  accessSync,
  chmodSync,
  constants,
  existsSync,
  mkdirSync,
  readdirSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { dataDir } from "../../lib/cli/dataDir.ts";
import { cleanup, tempDataDir } from "../support/cli.ts";
import { cli } from "./support.ts";

const root = tempDataDir("cli-datadir");
const dir = join(root, "store");
afterAll(() => cleanup(root));

/** A directory that exists and that nobody can write, not even root (sysfs refuses). */
const UNWRITABLE = (() => {
  try {
    accessSync("/sys/kernel", constants.R_OK);
    return "/sys/kernel";
  } catch {
    return undefined;
  }
})();

describe("the data dir is checked before any store is opened", () => {
  it('--dir "" is a usage error, and nothing is written to the current directory', async () => {
    const cwd = join(root, "cwd");
    mkdirSync(cwd);
    for (const args of [["ls"], ["run", "hi"], ["show", "x"]]) {
      const result = await cli([...args, "--dir", ""], { cwd });
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toMatch(/^runlog: --dir must not be empty/);
    }
    expect(readdirSync(cwd)).toEqual([]);
  });

  it("an empty RUNLOG_DIR is an unset one: ./.runlog, not the current directory", async () => {
    const cwd = join(root, "cwd-env");
    mkdirSync(cwd);
    const ls = await cli(["ls"], { cwd, env: { RUNLOG_DIR: "" } });
    expect(ls.code, ls.stderr).toBe(0);
    expect(ls.stdout).toBe(`no runs in ${join(cwd, ".runlog")}\n`);
    expect(readdirSync(cwd)).toEqual([]);
  });

  it("ls, show, resume-point and the like of a dir that does not exist create nothing", async () => {
    const missing = join(root, "missing", "deeper");
    const ls = await cli(["ls"], { dir: missing });
    expect(ls.code, ls.stderr).toBe(0);
    expect(ls.stdout).toMatch(/no runs in .*deeper/);
    const lsJson = await cli(["ls", "--json"], { dir: missing });
    expect(JSON.parse(lsJson.stdout)).toEqual({ runs: [] });
    for (const command of [
      ["show", "nope"],
      ["resume-point", "nope"],
      ["resume", "nope"],
      ["send", "nope", "hello"],
      ["fork", "nope"],
      ["cancel", "nope"],
      ["approve", "nope", "call_1"],
    ]) {
      const result = await cli(command, { dir: missing });
      expect(result.code, command.join(" ")).toBe(2);
      expect(result.stderr).toBe("runlog: run nope not found\n");
    }
    const swept = await cli(["sweep", "--json"], { dir: missing });
    expect(swept.code).toBe(0);
    expect(JSON.parse(swept.stdout)).toMatchObject({ examined: 0, resumed: [] });
    expect(existsSync(join(root, "missing"))).toBe(false);
  });

  it("a file given as the data dir is exit 2 naming it", async () => {
    const file = join(root, "a-file");
    writeFileSync(file, "not a directory");
    for (const args of [["ls"], ["run", "hi"], ["show", "x"]]) {
      const result = await cli(args, { dir: file });
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toBe(`runlog: data dir ${file} is a file, not a directory\n`);
    }
    const under = join(file, "sub");
    for (const args of [["ls"], ["run", "hi"]]) {
      const result = await cli(args, { dir: under });
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toBe(`runlog: data dir ${under} cannot be created: ${file} is not a directory\n`);
    }
  });

  it.skipIf(UNWRITABLE === undefined)(
    "a dir that cannot be written or created is exit 2 naming it",
    async () => {
      const existing = UNWRITABLE!;
      const run = await cli(["run", "hi"], { dir: existing });
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toMatch(new RegExp(`^runlog: data dir ${existing} is not writable \\(`));
      // A read finds no store there: no runs, as in a missing dir.
      const ls = await cli(["ls"], { dir: existing });
      expect([ls.code, ls.stdout]).toEqual([0, `no runs in ${existing}\n`]);
      const inside = join(existing, "runlog-store");
      const result = await cli(["run", "hi"], { dir: inside });
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toMatch(new RegExp(`^runlog: data dir ${inside} cannot be created \\(`));
      expect(existsSync(inside)).toBe(false);
    },
  );

  it("run creates a data dir that does not exist yet", async () => {
    const result = await cli(["run", "--run-id", "first", "Plan my afternoon", "--json"], { dir });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ runId: "first", status: "completed" });
    const ls = await cli(["ls", "--json"], { dir });
    expect(JSON.parse(ls.stdout).runs.map((run: { runId: string }) => run.runId)).toEqual(["first"]);
  });
});

describe("the data dir is private (issue 24)", () => {
  const mode = (path: string) => statSync(path).mode & 0o777;

  it("is created 0700, whatever the umask", async () => {
    const path = join(root, "private-new");
    const umask = process.umask(0);
    try {
      const warnings: string[] = [];
      await dataDir(path, ".runlog", { create: true, warn: (line) => warnings.push(line) });
      expect(mode(path)).toBe(0o700);
      expect(warnings).toEqual([]);
    } finally {
      process.umask(umask);
    }
  });

  it("is tightened to 0700 when wider, with one warning naming it and its old mode", async () => {
    const path = join(root, "private-loose");
    mkdirSync(path);
    chmodSync(path, 0o755);
    const warnings: string[] = [];
    await dataDir(path, ".runlog", { create: true, warn: (line) => warnings.push(line) });
    expect(mode(path)).toBe(0o700);
    expect(warnings).toEqual([`runlog: data dir ${path} was mode 0755, open to other users; set to 0700`]);
  });

  it("a shared dir (sticky, as /tmp) is left as it is, with a warning", async () => {
    const path = join(root, "private-shared");
    mkdirSync(path);
    chmodSync(path, 0o1777);
    const warnings: string[] = [];
    await dataDir(path, ".runlog", { create: true, warn: (line) => warnings.push(line) });
    expect(statSync(path).mode & 0o7777).toBe(0o1777);
    expect(warnings).toHaveLength(1);
  });
});
