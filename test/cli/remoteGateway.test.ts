import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LocalRunlog, openLocal } from "../../lib/api/local.ts";
import { apiHandler } from "../../lib/http/lambda.ts";
import { DONE, EMAIL } from "../http/support.ts";
import { type LocalApiGateway, type ProxyHandler, serveApiGateway } from "../support/apiGatewayV2.ts";
import { cleanup, ROOT, script, spawnNode, tempDataDir, testEnv } from "../support/cli.ts";

/**
 * `runlog --url` against the API as deployed: the Lambda handler behind a stand-in for API
 * Gateway's HTTP API over https, which verifies every SigV4 signature. The CLI signs with the
 * default credential chain (here the AWS_ variables), as an operator's shell does.
 */
const REGION = "eu-west-1";
const ANA = { AWS_ACCESS_KEY_ID: "AKIDANA", AWS_SECRET_ACCESS_KEY: "ana-secret" };
let dir: string;
let local: LocalRunlog;
let gateway: LocalApiGateway;
let ca: string;

beforeAll(async () => {
  dir = tempDataDir("cli-remote-gateway");
  const key = join(dir, "tls.key");
  ca = join(dir, "tls.crt");
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:prime256v1",
      "-nodes",
      "-days",
      "1",
      "-subj",
      "/CN=localhost",
      "-addext",
      "subjectAltName=IP:127.0.0.1",
      "-keyout",
      key,
      "-out",
      ca,
    ],
    { stdio: "ignore" },
  );
  local = await openLocal({ dataDir: dir, background: true, env: testEnv() });
  const handler = apiHandler(local.runlog, { allowScriptFiles: true }) as ProxyHandler;
  gateway = await serveApiGateway(
    handler,
    { AKIDANA: { secretAccessKey: "ana-secret", userArn: "arn:aws:iam::123456789012:user/ana" } },
    { region: REGION, service: "execute-api" },
    { key: readFileSync(key, "utf8"), cert: readFileSync(ca, "utf8") },
  );
});
afterAll(async () => {
  await gateway?.close();
  await local?.close();
  await cleanup(dir);
});

/** `runlog ARGS` with RUNLOG_URL naming the gateway, signing as `keys`. */
const cli = (args: string[], keys: Record<string, string> = ANA) =>
  spawnNode([join(ROOT, "bin", "runlog.js"), ...args], {
    env: testEnv({
      RUNLOG_URL: gateway.url,
      AWS_REGION: REGION,
      NODE_EXTRA_CA_CERTS: ca,
      AWS_PROFILE: "",
      ...keys,
    }),
  });

describe("runlog --url through API Gateway (IAM auth) to the Lambda handler", () => {
  it("starts a run, approves what it pauses for and lists it, every request signed", async () => {
    const model = script(dir, "gateway", [{ toolCalls: [EMAIL] }, DONE]);
    const paused = await cli(["run", "--run-id", "gateway", "--model", model, "Mail Ana", "--json"]);
    expect(paused.code, paused.stderr).toBe(3);
    expect(JSON.parse(paused.stdout)).toMatchObject({ runId: "gateway", status: "paused" });
    const approved = await cli(["approve", "gateway", "call_0_0", "--json"]);
    expect(approved.code, approved.stderr).toBe(0);
    expect(JSON.parse(approved.stdout)).toEqual({ runId: "gateway", status: "completed", output: "Done" });
    const listed = await cli(["ls", "--json"]);
    expect(JSON.parse(listed.stdout).runs).toMatchObject([
      { runId: "gateway", status: "completed", owner: { id: "arn:aws:iam::123456789012:user/ana" } },
    ]);
    expect(gateway.verdicts.length).toBeGreaterThan(3);
    expect(gateway.verdicts.every((verdict) => !("refused" in verdict))).toBe(true);
  });

  it("is refused, naming the gateway's answer, when signed with a wrong secret", async () => {
    const wrong = await cli(["ls"], { ...ANA, AWS_SECRET_ACCESS_KEY: "not-ana-secret" });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/^runlog: .*403/m);
    expect(gateway.verdicts.at(-1)).toHaveProperty("refused");
  });
});
