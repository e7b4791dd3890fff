import { Sha256 } from "@smithy/core/checksum";
import { SignatureV4 } from "@smithy/signature-v4";

/** What API Gateway's IAM authorizer checks, as far as a test needs: whose key, and whether the signature holds. */
export type Verdict = { accessKeyId: string } | { refused: string };

const AUTHORIZATION =
  /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/;

/** `20261204T160000Z` as a Date. */
function amzDate(value: string): Date | undefined {
  const parts = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value);
  if (!parts) return undefined;
  const [, y, mo, d, h, mi, s] = parts.map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  return new Date(Date.UTC(y, mo - 1, d, h, mi, s));
}

/**
 * Check a request's SigV4 signature the way the service does: read the key id, date, scope and
 * signed headers from its Authorization header, sign the same canonical request again with the
 * secret this test gave that key (the SDK's own signer), and compare. A request signed with another
 * secret, for another region or service, or changed after signing, is refused.
 */
export async function verifySigV4(
  request: Request,
  body: string,
  secrets: Record<string, string>,
  expected: { region: string; service: string },
): Promise<Verdict> {
  const match = AUTHORIZATION.exec(request.headers.get("authorization") ?? "");
  if (!match) return { refused: "Missing Authentication Token" };
  const [, accessKeyId, day, region, service, signedHeaders, signature] = match as unknown as string[];
  const secretAccessKey = secrets[accessKeyId!];
  if (secretAccessKey === undefined)
    return { refused: "The security token included in the request is invalid" };
  if (region !== expected.region || service !== expected.service) {
    return { refused: `Credential should be scoped to ${expected.region}/${expected.service}` };
  }
  const signingDate = amzDate(request.headers.get("x-amz-date") ?? "");
  if (!signingDate || signingDate.toISOString().slice(0, 10).replaceAll("-", "") !== day) {
    return { refused: "x-amz-date is missing or does not match the credential's date" };
  }
  const url = new URL(request.url);
  const headers: Record<string, string> = {};
  for (const name of signedHeaders!.split(";")) {
    const value = request.headers.get(name);
    if (value === null) return { refused: `signed header ${name} is missing` };
    headers[name] = value;
  }
  const query: Record<string, string | string[]> = {};
  for (const [name, value] of url.searchParams) {
    const seen = query[name];
    query[name] = seen === undefined ? value : [...[seen].flat(), value];
  }
  const sessionToken = request.headers.get("x-amz-security-token") ?? undefined;
  const signer = new SignatureV4({
    region,
    service,
    sha256: Sha256,
    credentials: { accessKeyId: accessKeyId!, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) },
  });
  const again = await signer.sign(
    {
      method: request.method,
      protocol: url.protocol,
      hostname: url.hostname,
      ...(url.port === "" ? {} : { port: Number(url.port) }),
      path: url.pathname,
      query,
      headers,
      ...(body === "" ? {} : { body }),
    },
    { signingDate },
  );
  const ours = /Signature=([0-9a-f]{64})$/.exec(again.headers.authorization ?? "")?.[1];
  return ours === signature
    ? { accessKeyId: accessKeyId! }
    : {
        refused:
          "The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method.",
      };
}
