import { execFileSync } from "node:child_process";
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cleanup, script, tempDataDir } from "../support/cli.ts";
import { type Served, serve, stopServed } from "../support/serve.ts";
import { cli } from "./support.ts";

/** `runlog serve` as a user starts it, locked to that user (issue 24). */
const dir = tempDataDir("cli-serve-lock");
const started: Served[] = [];
afterAll(async () => {
  for (const served of started) stopServed(served);
  await cleanup(dir);
});

async function serving(args: string[]): Promise<Served> {
  const served = await serve(["--dir", dir, ...args]);
  started.push(served);
  return served;
}

const TOKEN = "a-token-from-a-file-0123456789abcdef";

async function startRun(served: Served, model: string) {
  const response = await served.fetch("/runs", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ agent: "demo", input: "hi", model }),
  });
  return { status: response.status, body: (await response.json()) as { error?: Record<string, unknown> } };
}

describe("runlog serve's token", () => {
  it("is fresh at every start: 32 random bytes, base64url, in the URL it prints", async () => {
    const [one, two] = await Promise.all([serving([]), serving([])]);
    expect(one!.opened).toBe(`${one!.url}/?token=${one!.token}`);
    expect(one!.token).toMatch(/^[\w-]{43}$/);
    expect(one!.token).not.toBe(two!.token);
    expect((await fetch(`${one!.url}/runs`)).status).toBe(401);
    expect((await one!.fetch("/runs")).status).toBe(200);
    // One server's token opens no other.
    expect(
      (await fetch(`${two!.url}/runs`, { headers: { authorization: `Bearer ${one!.token}` } })).status,
    ).toBe(401);
  });

  it("is read from --token-file, a private regular file", async () => {
    const file = join(dir, "token");
    writeFileSync(file, `${TOKEN}\n`, { mode: 0o600 });
    chmodSync(file, 0o600);
    const served = await serving(["--token-file", file]);
    expect(served.token).toBe(TOKEN);
  });

  it.each([
    ["world-readable", 0o644, "is mode 0644: other users could read it; chmod 600 it"],
    ["group-readable", 0o640, "is mode 0640: other users could read it; chmod 600 it"],
  ])("refuses a %s --token-file with exit 2", async (_, mode, problem) => {
    const file = join(dir, `token-${mode.toString(8)}`);
    writeFileSync(file, TOKEN);
    chmodSync(file, mode);
    const result = await cli(["serve", "--port", "0", "--token-file", file], { dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`serve: --token-file ${file} ${problem}`);
    expect(result.stderr).not.toContain(TOKEN);
  });

  it("refuses a FIFO, a directory and a short token as --token-file, at once", async () => {
    const fifo = join(dir, "token-fifo");
    execFileSync("mkfifo", ["-m", "600", fifo]);
    const short = join(dir, "token-short");
    writeFileSync(short, "short", { mode: 0o600 });
    for (const [file, problem] of [
      [fifo, "is not a regular file"],
      [dir, "is not a regular file"],
      [short, "must hold one token of at least 32 printable characters, no spaces"],
    ] as const) {
      const result = await cli(["serve", "--port", "0", "--token-file", file], { dir });
      expect([file, result.code]).toEqual([file, 2]);
      expect(result.stderr).toContain(`serve: --token-file ${file} ${problem}`);
    }
  });
});

describe("runlog serve and script files", () => {
  it("refuses scripted:FILE without --allow-scripted", async () => {
    const served = await serving([]);
    const file = script(dir, "allowed", [{ text: "hi" }]);
    for (const model of ["scripted:/etc/passwd", file]) {
      const answer = await startRun(served, model);
      expect([model, answer.status, answer.body.error?.field]).toEqual([model, 400, "model"]);
    }
  });

  it("with --allow-scripted, a FIFO is refused at once and /etc/passwd's text is never shown", async () => {
    const served = await serving(["--allow-scripted"]);
    const fifo = join(dir, "script-fifo");
    execFileSync("mkfifo", [fifo]);
    for (const model of [`scripted:${fifo}`, "scripted:/etc/passwd", "scripted:/dev/zero"]) {
      const answer = await startRun(served, model);
      expect([model, answer.status]).toEqual([model, 400]);
      expect(JSON.stringify(answer.body)).not.toContain("root:");
    }
    // Still answering: nothing hung on the FIFO.
    expect((await served.fetch("/runs")).status).toBe(200);
  });

  it("refuses --allow-scripted with --table (the deployment's functions would read the files)", async () => {
    const result = await cli(
      [
        "serve",
        "--allow-scripted",
        "--table",
        "t",
        "--state-machine",
        "arn:aws:states:us-east-1:1:stateMachine:s",
      ],
      {},
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--allow-scripted is for this machine's runs");
  });
});
