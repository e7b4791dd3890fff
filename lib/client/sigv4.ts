/**
 * AWS Signature V4 for the client, loaded only when a client signs (auth.ts imports it lazily):
 * the SDK's own signer over Node's crypto, and the SDK's default credential chain only when no
 * credentials are given. Not the SDK's HTTP clients: a request is signed and then sent by fetch.
 */
import { Sha256 } from "@smithy/core/checksum";
import { SignatureV4 } from "@smithy/signature-v4";
import type { Authenticate, AwsCredentials } from "./outgoing.ts";

/** What signs: where, for which service, with which credentials. */
export interface SigV4Options {
  region: string;
  service: string;
  credentials: AwsCredentials | (() => Promise<AwsCredentials>) | undefined;
}

async function defaultChain(): Promise<() => Promise<AwsCredentials>> {
  const { defaultProvider } = await import("@aws-sdk/credential-provider-node");
  return defaultProvider();
}

/** An authenticator that signs each request with SigV4 (the headers it adds: authorization, x-amz-date, x-amz-security-token). */
export async function sigv4({ region, service, credentials }: SigV4Options): Promise<Authenticate> {
  const signer = new SignatureV4({
    region,
    service,
    sha256: Sha256,
    credentials: credentials ?? (await defaultChain()),
  });
  return async (request) => {
    const headers: Record<string, string> = { host: request.url.host };
    request.headers.forEach((value, name) => {
      headers[name] = value;
    });
    const query: Record<string, string | string[]> = {};
    for (const [name, value] of request.url.searchParams) {
      const seen = query[name];
      query[name] = seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value];
    }
    const signed = await signer.sign({
      method: request.method,
      protocol: request.url.protocol,
      hostname: request.url.hostname,
      ...(request.url.port === "" ? {} : { port: Number(request.url.port) }),
      path: request.url.pathname,
      query,
      headers,
      ...(request.body === undefined ? {} : { body: request.body }),
    });
    for (const [name, value] of Object.entries(signed.headers)) {
      // fetch sends Host itself, from the URL the signature was made for.
      if (name.toLowerCase() !== "host") request.headers.set(name, value);
    }
  };
}
