import { InvalidInputError } from "../core/errors.ts";
import type { Authenticate, AwsCredentials } from "./outgoing.ts";

export type { AwsCredentials } from "./outgoing.ts";

/** How the client proves who it is to the API. */
export type ClientAuth =
  /** Nothing: an API behind no authorizer (a trusted network only). */
  | { type: "none" }
  /**
   * `Authorization: Bearer TOKEN`: a JWT for a deployment with `jwt` set, or `runlog serve`'s
   * per-start token. A function is asked before every request (a JWT that is refreshed).
   */
  | { type: "bearer"; token: string | (() => string | Promise<string>) }
  /**
   * AWS Signature V4, for a deployment with IAM auth (the default). The signer and the credential
   * chain are loaded on the first request, so a client that does not sign never loads them.
   */
  | {
      type: "sigv4";
      /** The API's region. @default read from an execute-api (or lambda-url) host; required for a custom domain */
      region?: string;
      /** The credentials, or a provider of them. @default the SDK's default chain (environment, profile, SSO, container, instance) */
      credentials?: AwsCredentials | (() => Promise<AwsCredentials>);
      /** The service the signature is for. @default "execute-api" (or "lambda" for a function URL) */
      service?: string;
    };

/** The region and service of an AWS endpoint host: `ID.execute-api.REGION.amazonaws.com`, `ID.lambda-url.REGION.on.aws`. */
export function awsEndpointOf(host: string): { region: string; service: string } | undefined {
  const api = /^[^.]+\.execute-api\.([a-z0-9-]+)\.amazonaws\.com(?:\.cn)?$/.exec(host);
  if (api) return { region: api[1]!, service: "execute-api" };
  const functionUrl = /^[^.]+\.lambda-url\.([a-z0-9-]+)\.on\.aws$/.exec(host);
  if (functionUrl) return { region: functionUrl[1]!, service: "lambda" };
  return undefined;
}

/** The authenticator for `auth`, checked now (a bad option is an error of createClient, not of the first call). */
export function authenticator(auth: ClientAuth, url: URL): Authenticate {
  switch (auth.type) {
    case "none":
      return async () => {};
    case "bearer": {
      const { token } = auth;
      if (typeof token !== "function" && (typeof token !== "string" || token.trim() === "")) {
        throw new InvalidInputError("auth.token: expected a token or a function that returns one", {
          field: "auth.token",
        });
      }
      return async (request) => {
        const value = typeof token === "function" ? await token() : token;
        request.headers.set("authorization", `Bearer ${value}`);
      };
    }
    case "sigv4": {
      for (const name of ["region", "service"] as const) {
        const value = auth[name];
        if (value !== undefined && (typeof value !== "string" || value.trim() === "")) {
          throw new InvalidInputError(
            `auth.${name}: expected a non-empty string, got ${JSON.stringify(value)}`,
            {
              field: `auth.${name}`,
            },
          );
        }
      }
      const { credentials } = auth;
      if (
        credentials !== undefined &&
        typeof credentials !== "function" &&
        (typeof credentials !== "object" ||
          credentials === null ||
          typeof credentials.accessKeyId !== "string" ||
          typeof credentials.secretAccessKey !== "string")
      ) {
        throw new InvalidInputError(
          "auth.credentials: expected { accessKeyId, secretAccessKey, sessionToken? } or a function that returns them",
          { field: "auth.credentials" },
        );
      }
      const endpoint = awsEndpointOf(url.hostname);
      const region = auth.region ?? endpoint?.region;
      if (region === undefined) {
        throw new InvalidInputError(
          `auth.region: ${url.hostname} is not an execute-api or lambda-url host, so the region cannot be read from it: give auth.region`,
          { field: "auth.region" },
        );
      }
      const service = auth.service ?? endpoint?.service ?? "execute-api";
      let signer: Promise<Authenticate> | undefined;
      return async (request) => {
        // Loaded once, on the first signed request: a client that does not sign never pays for it.
        signer ??= import("./sigv4.ts").then(({ sigv4 }) =>
          sigv4({ region, service, credentials: auth.credentials }),
        );
        await (await signer)(request);
      };
    }
    default: {
      const unknown: never = auth;
      throw new InvalidInputError(
        `auth.type: expected "none", "bearer" or "sigv4", got ${JSON.stringify((unknown as { type?: unknown }).type)}`,
        { field: "auth.type" },
      );
    }
  }
}
