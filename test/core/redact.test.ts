import { describe, expect, it } from "vitest";
import { redact } from "../../lib/core/redact.ts";

describe("redact", () => {
  it.each([
    [
      "an OpenAI key a provider echoes",
      "Incorrect API key provided: sk-proj-Abc123def456GHI789jkl0. See docs",
      "[redacted:openai-key]",
    ],
    [
      "an OpenAI key echoed shortened",
      "Incorrect API key provided: sk-abc1***************wxyz.",
      "[redacted:openai-key]",
    ],
    [
      "an Anthropic key",
      "x-api-key sk-ant-api03-AAAAAAAAAAAAAAAAAAAA-BBBB is invalid",
      "[redacted:anthropic-key]",
    ],
    [
      "an AWS access key id",
      "The security token AKIAIOSFODNN7EXAMPLE is invalid",
      "[redacted:aws-access-key-id]",
    ],
    ["a temporary AWS key id", "ASIAY34FZKBOKMUTVV7A expired", "[redacted:aws-access-key-id]"],
    [
      "an AWS secret after its name",
      "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
      "aws_secret_access_key = [redacted:aws-secret-access-key]",
    ],
    [
      "a bearer token",
      "Authorization: Bearer abc.def-ghi_jkl~mno",
      "Authorization: Bearer [redacted:bearer-token]",
    ],
    [
      "a JWT",
      "token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U rejected",
      "[redacted:jwt]",
    ],
    ["a GitHub token", "ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 revoked", "[redacted:github-token]"],
    ["an api_key field", '{"api_key": "k-9f8e7d6c5b4a"}', '{"api_key": "[redacted:api-key]"}'],
  ])("removes %s", (_name, text, shown) => {
    const out = redact(text);
    expect(out).toContain(shown);
    // Nothing of the credential is left: no 8-character run of it survives.
    const secret = text.match(
      /(sk-[\w*-]+|AKIA\w+|ASIA\w+|wJalr\S+|abc\.def\S+|eyJ\S+|ghp_\w+|k-9f8e\w+)/,
    )![0];
    expect(out).not.toContain(secret.slice(0, 8) === "sk-abc1*" ? "abc1" : secret.slice(3, 11));
  });

  it("removes a known secret of any shape, wherever it appears", () => {
    const key = "my-own-gateway-key-2f9a";
    expect(redact(`bad key ${key}; retried with ${key}`, [key])).toBe(
      "bad key [redacted:secret]; retried with [redacted:secret]",
    );
    // Too short to be told apart from words: not redacted by value.
    expect(redact("a key", ["key"])).toBe("a key");
  });

  it.each([
    "OPENAI_API_KEY=<redacted, 3 characters> is not allowed; expected an API key",
    "AWS_SECRET_ACCESS_KEY=<redacted, 3 characters> is not allowed",
    "aws_session_token: <redacted, 12 characters>",
    "RUNLOG_TOKEN=<redacted, 40 characters> is not allowed",
    '{"api_key": "[redacted:api-key]"}',
    "password=[redacted:secret]",
    "Authorization: Bearer [redacted:bearer-token]",
  ])("leaves what was redacted already as it is: %s", (text) => {
    expect(redact(text)).toBe(text);
  });

  it.each([
    "scikit-learn is sk-learn to some; a risk-free task",
    "the run f1 failed at seq 12 (generation 3)",
    "model openai:gpt-4.1-mini rejected the request: 400 Unsupported parameter",
    "bearer bonds",
  ])("leaves ordinary text as it is: %s", (text) => {
    expect(redact(text)).toBe(text);
  });
});
