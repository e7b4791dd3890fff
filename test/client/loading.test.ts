import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { ROOT } from "../support/cli.ts";
import { LOAD_HOOK, packagesOf } from "../support/loadedModules.ts";

/**
 * What `import "runlog/client"` loads, as a user's program imports it (the built package, by its
 * export name), recorded by a module hook in a fresh Node: which packages of node_modules were
 * loaded after the client was imported, made, and (per case) used.
 */
function packagesLoaded(use: string): string[] {
  const code = `${LOAD_HOOK}
    const { createClient } = await import("runlog/client");
    const ok = async () => Response.json({ runs: [] });
    ${use}
    process.stdout.write(JSON.stringify([...loaded]));
  `;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    AWS_ACCESS_KEY_ID: "AKIDLOADING",
    AWS_SECRET_ACCESS_KEY: "secret",
  };
  delete env.AWS_PROFILE;
  const run = spawnSync(process.execPath, ["--input-type=module", "-e", code], {
    cwd: ROOT,
    env,
    encoding: "utf8",
  });
  expect(run.stderr).toBe("");
  return packagesOf(JSON.parse(run.stdout) as string[]);
}

const URL = "https://abc123.execute-api.eu-west-1.amazonaws.com";
const isSdkClient = (name: string) => name.startsWith("@aws-sdk/client-");

describe('import "runlog/client"', () => {
  it("loads no AWS SDK, no signer, no zod and no HTTP framework: only its event-stream parser", () => {
    const loaded = packagesLoaded(`createClient({ url: "${URL}", auth: { type: "sigv4" } });`);
    expect(loaded).toEqual(["eventsource-parser"]);
  });

  it("loads the signer on the first signed request, and no AWS SDK client", () => {
    const loaded = packagesLoaded(`
      const credentials = { accessKeyId: "AKIDLOADING", secretAccessKey: "secret" };
      await createClient({ url: "${URL}", auth: { type: "sigv4", credentials }, fetch: ok }).list();
    `);
    expect(loaded).toContain("@smithy/signature-v4");
    expect(loaded).not.toContain("@aws-sdk/credential-provider-node");
    expect(loaded.filter(isSdkClient)).toEqual([]);
  });

  it("loads the default credential chain only when no credentials are given, and still no AWS SDK client", () => {
    const loaded = packagesLoaded(
      `await createClient({ url: "${URL}", auth: { type: "sigv4" }, fetch: ok }).list();`,
    );
    expect(loaded).toContain("@aws-sdk/credential-provider-node");
    expect(loaded.filter(isSdkClient)).toEqual([]);
  });
});
