/**
 * The one redactor: what an error, a log line or an answer says passes through it before it is
 * stored or shown, so a credential a provider echoes (`Incorrect API key provided: sk-…`) never
 * reaches a run's log, a terminal or an HTTP answer. It removes credentials of the shapes the
 * providers runlog talks to hand out, and any value it is told is secret, whatever its shape.
 * What it does not know the shape of, it cannot catch (docs/design/threat-model.md).
 */

/** What a removed credential is replaced with: `[redacted:KIND]`, so a reader still knows what stood there. */
export const redacted = (kind: string) => `[redacted:${kind}]`;

/** How a secret value is shown where its length helps (a bad variable): `<redacted, N characters>`. */
export const redactedValue = (value: string) => `<redacted, ${value.length} characters>`;

/** Credential shapes, most specific first: each match is replaced by its kind. */
const SHAPES: readonly (readonly [kind: string, pattern: RegExp])[] = [
  // A JWT (or any JWS): three base64url parts, the first an encoded JSON header (`eyJ`).
  ["jwt", /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g],
  // Anthropic keys before OpenAI's (both start `sk-`).
  ["anthropic-key", /\bsk-ant-[A-Za-z0-9_-]{16,}/g],
  // OpenAI keys: `sk-…`, `sk-proj-…`, `sk-svcacct-…`; servers echo them shortened (`sk-abc…wxyz`) too.
  ["openai-key", /\bsk-(?:[A-Za-z0-9_-]{16,}|[A-Za-z0-9_-]{2,}(?:\*{3,}|…|\.{3})[A-Za-z0-9_*-]*)/g],
  // An AWS access key id (long-term AKIA, temporary ASIA, and the other documented prefixes).
  ["aws-access-key-id", /\b(?:AKIA|ASIA|ABIA|ACCA|AROA|AIDA)[A-Z0-9]{16}\b/g],
  // GitHub tokens.
  ["github-token", /\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})/g],
  // Google API keys.
  ["google-api-key", /\bAIza[0-9A-Za-z_-]{35}\b/g],
];

/**
 * A credential that follows its name: `Bearer …`, `aws_secret_access_key = …`, `"api_key": "…"`.
 * Never what already stands for a removed value (`(?!\[redacted:|<redacted, N characters>)`), so a
 * message redacted once (a ConfigError naming a bad key) reads the same after redact again.
 */
const NAMED: readonly (readonly [kind: string, pattern: RegExp])[] = [
  ["bearer-token", /(\b[Bb]earer\s+)(?!\[redacted:|<redacted, \d+ characters>)[A-Za-z0-9._~+/=-]{8,}/g],
  [
    "aws-secret-access-key",
    /((?:aws_?secret_?access_?key|SecretAccessKey|secretAccessKey)["']?\s*[:=]\s*["']?)(?!\[redacted:|<redacted, \d+ characters>)[A-Za-z0-9/+=]{30,}/g,
  ],
  [
    "aws-session-token",
    /((?:aws_?session_?token|SessionToken|sessionToken)["']?\s*[:=]\s*["']?)(?!\[redacted:|<redacted, \d+ characters>)[A-Za-z0-9/+=]{40,}/g,
  ],
  [
    "api-key",
    /((?:api[_-]?key|x-api-key|access[_-]?token|password|secret)["']?\s*[:=]\s*["']?)(?!\[redacted:|<redacted, \d+ characters>)[^\s"',;]{8,}/gi,
  ],
];

/** Values shorter than this are not redacted by value: a 3-character "secret" would blank out ordinary words. */
const MIN_KNOWN_LENGTH = 8;

/**
 * `text` with every credential it holds replaced by `[redacted:KIND]`: the known shapes, and each
 * of `known` (the process's own keys, whatever their shape) wherever it appears.
 */
export function redact(text: string, known: readonly (string | undefined)[] = []): string {
  let out = text;
  for (const value of known) {
    if (value !== undefined && value.length >= MIN_KNOWN_LENGTH)
      out = out.split(value).join(redacted("secret"));
  }
  for (const [kind, pattern] of SHAPES) out = out.replace(pattern, redacted(kind));
  for (const [kind, pattern] of NAMED)
    out = out.replace(pattern, (_match, name: string) => `${name}${redacted(kind)}`);
  return out;
}
