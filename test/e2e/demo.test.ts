import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cleanup, runlog, tempDataDir } from "../support/cli.ts";

const dir = tempDataDir("demo");
afterAll(() => cleanup(join(dir, "demo")));

describe("runlog demo (what npm start runs)", () => {
  it("runs offline, crashes a child mid tool batch, resumes it, and writes no note twice", async () => {
    const result = await runlog(dir, ["demo"]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("model scripted:demo (offline");
    expect(result.stdout).toContain("the child exited with code 137");
    expect(result.stdout).toMatch(/"resumable":true,"kind":"recover_tools"/);
    expect(result.stdout).toContain("no note was written twice.");
    expect(result.stdout).not.toMatch(/WRITTEN TWICE/);
  });
});
