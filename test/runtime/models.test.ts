import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it, vi } from "vitest";
import { InvalidInputError, ModelRejectedError, UnknownModelError } from "../../lib/core/errors.ts";
import { checkModelSpec, modelResolver } from "../../lib/runtime/models.ts";

afterEach(() => vi.unstubAllEnvs());

describe("modelResolver", () => {
  it("refuses an openai: model without a key when the spec is named, before any call", () => {
    vi.stubEnv("OPENAI_API_KEY", "");
    const resolve = modelResolver();
    expect(() => resolve("openai:gpt-4.1-mini")).toThrow(ModelRejectedError);
    expect(() => resolve("openai:gpt-4.1-mini")).toThrow(/openai:gpt-4.1-mini: .*set OPENAI_API_KEY/);
  });

  it("takes the key from its options, never from the environment, and builds each model once", () => {
    vi.stubEnv("OPENAI_API_KEY", "sk-in-the-environment");
    expect(() => modelResolver()("openai:m")).toThrow(/set OPENAI_API_KEY/);
    const resolve = modelResolver({ openai: { apiKey: "sk-given" } });
    const model = resolve("openai:llama3.1:8b");
    expect(model.spec).toBe("openai:llama3.1:8b");
    expect(resolve("openai:llama3.1:8b")).toBe(model);
  });

  it("names the specs it knows when given another", () => {
    expect(() => modelResolver()("anthropic:claude")).toThrow(UnknownModelError);
    expect(() => modelResolver()("anthropic:claude")).toThrow(/known prefixes are scripted:, openai:/);
  });
});

describe("bedrock: specs", () => {
  it("keep every colon of a versioned id or an ARN, and build nothing until called", () => {
    const resolve = modelResolver();
    expect(resolve("bedrock:anthropic.claude-3-5-haiku-20241022-v1:0").spec).toBe(
      "bedrock:anthropic.claude-3-5-haiku-20241022-v1:0",
    );
    const arn = "arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.amazon.nova-lite-v1:0";
    expect(resolve(`bedrock:${arn}`).spec).toBe(`bedrock:${arn}`);
  });

  it.each(["bedrock:", "bedrock:  ", "bedrock:two words"])("refuse %j naming the model field", (spec) => {
    expect(() => checkModelSpec(spec)).toThrow(InvalidInputError);
    expect(() => modelResolver()(spec)).toThrow(expect.objectContaining({ field: "model" }));
  });

  it.each(["bedrock: amazon.nova-lite-v1:0", "openai: x", "openai:x ", "scripted: demo", "openai:\tx"])(
    "%j: a name with a blank at either end is refused, naming the model field, never trimmed",
    (spec) => {
      expect(() => checkModelSpec(spec)).toThrow(
        expect.objectContaining({ name: "InvalidInputError", field: "model" }),
      );
      expect(() => modelResolver({ openai: { apiKey: "sk-given" } })(spec)).toThrow(
        /the model name after [a-z]+: starts or ends with a blank/,
      );
    },
  );

  it("are refused as a provider's own prefix: bedrock is built in", () => {
    expect(() =>
      modelResolver({ providers: { bedrock: () => ({ spec: "x", call: async () => ({}) as never }) } }),
    ).toThrow(/bedrock: is built in/);
  });
});

describe("bedrock: the SDK loads on the first call, not before", () => {
  it("import runlog, resolve a bedrock: model: no Bedrock client loaded; call it: loaded", () => {
    const dir = mkdtempSync(join(tmpdir(), "runlog-lazy-bedrock-"));
    const seen = join(dir, "seen.txt");
    // A resolve hook (in its own thread) notes every module whose name is the Bedrock client's.
    const hooks = `data:text/javascript,${encodeURIComponent(`
      import { appendFileSync } from "node:fs";
      export async function resolve(specifier, context, next) {
        if (specifier.includes("client-bedrock-runtime")) appendFileSync(${JSON.stringify(seen)}, specifier + "\\n");
        return next(specifier, context);
      }`)}`;
    const root = join(import.meta.dirname, "..", "..");
    const script = `
      import { register } from "node:module";
      import { existsSync } from "node:fs";
      register(${JSON.stringify(hooks)});
      const loaded = () => existsSync(${JSON.stringify(seen)});
      const runlog = await import(${JSON.stringify(pathToFileURL(join(root, "lib/index.ts")).href)});
      const { modelResolver } = await import(${JSON.stringify(pathToFileURL(join(root, "lib/runtime/models.ts")).href)});
      const afterImport = loaded();
      const model = modelResolver()("bedrock:amazon.nova-lite-v1:0");
      const afterResolve = loaded();
      await model.call({ runId: "r", turn: 0, instructions: "", messages: [{ role: "user", content: "hi" }], tools: [] }).catch(() => {});
      console.log(JSON.stringify({ exports: typeof runlog.openLocal, afterImport, afterResolve, afterCall: loaded() }));
    `;
    const out = execFileSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      cwd: root,
      encoding: "utf8",
      // Nowhere to send the call: it fails at once, after loading the client.
      env: {
        ...process.env,
        AWS_REGION: "us-east-1",
        AWS_ENDPOINT_URL_BEDROCK_RUNTIME: "http://127.0.0.1:9",
        AWS_ACCESS_KEY_ID: "AKID",
        AWS_SECRET_ACCESS_KEY: "s",
        AWS_MAX_ATTEMPTS: "1",
      },
    });
    expect(JSON.parse(out.trim().split("\n").at(-1)!)).toEqual({
      exports: "function",
      afterImport: false,
      afterResolve: false,
      afterCall: true,
    });
    expect(readFileSync(seen, "utf8")).toContain("@aws-sdk/client-bedrock-runtime");
  });
});
