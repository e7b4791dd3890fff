import { Token } from "aws-cdk-lib";
import { MAX_RUNNING_PER_OWNER } from "../lib/core/principal.ts";
import { NAMES } from "../lib/runtime/config.ts";
import { RunlogPropsError } from "./propsError.ts";
import { describeValue } from "./propsShape.ts";
import { EVENT_SOURCE } from "./triggers.ts";

/** A JWT authorizer on every route of the HTTP API, in place of IAM. */
export interface RunlogJwtAuth {
  /** The token issuer's URL (`iss`), e.g. `https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_abc`: https, its OpenID discovery document beneath it. */
  issuer: string;
  /** The audiences (`aud`, or `client_id` for an access token) a token must name one of; at least one. */
  audience: string[];
  /** The claim naming the caller's tenant: everyone of one tenant shares its runs. @default none: each subject (`sub`) owns its own runs */
  tenantClaim?: string;
  /** The scope (in the token's `scope` claim) whose holders see and act on every run. @default none: no caller is an admin */
  adminScope?: string;
}

/** How callers of the HTTP API are authenticated. */
export interface RunlogAuth {
  /** Callers present a JWT from this issuer (API Gateway checks it) and are known by its `sub`. */
  jwt: RunlogJwtAuth;
}

/** API Gateway's throttling of the HTTP API's default stage, for every route together. */
export interface RunlogThrottle {
  /** Requests per second, on average. @default 50 */
  rateLimit?: number;
  /** Requests at once above the rate (the token bucket's size). @default 100 */
  burstLimit?: number;
}

/** Who may reach what: the HTTP API's callers, the models they may name, the events believed. */
export interface RunlogEdgeProps {
  /** How HTTP API callers are authenticated: a JWT authorizer, or IAM (SigV4) when absent. @default IAM: the caller is its principal ARN */
  auth?: RunlogAuth;
  /** With IAM auth, the principal ARN patterns (`*` any run of characters) that see and act on every run, e.g. `arn:aws:sts::123456789012:assumed-role/Ops/*`. @default none: every caller sees its own runs only */
  adminPrincipals?: string[];
  /** The most runs one owner may have running at once; a start over it is refused with a 429 naming the cap. @default no cap */
  maxRunningPerOwner?: number;
  /** The model specs a start, resume or fork may name (patterns, `*` any run of characters, e.g. `openai:gpt-4.1*`), over HTTP and by events; any other is a 400 naming the spec and this list. @default every spec runlog knows (events never `scripted:FILE`) */
  models?: { allow: string[] };
  /** Throttling of the HTTP API's default stage. @default { rateLimit: 50, burstLimit: 100 } */
  throttle?: RunlogThrottle;
  /** Reserved concurrency of the Api function: at most this many requests served at once, so callers cannot take the step functions' share of the account; `false` for none (the account's unreserved pool). 0 is refused: it would stop the API. @default 10 */
  apiReservedConcurrency?: number | false;
  /** The event `source` values whose `detail.owner` is believed: a StartRun's run gets that owner, a steering event (SendMessage, Decide, CancelRun) acts as it (the StartRun and SteerRun rules then also match them). A source is what the sender wrote: list one only where the bus's policy lets no one else send it (the `events:source` condition); `"runlog"`, every sender's source, is refused. @default none: every event-started run is owned, and every steering event acts, as its sender account, `account:<id>` */
  trustedEventSources?: string[];
}

export const DEFAULT_THROTTLE = { rateLimit: 50, burstLimit: 100 } as const;
export const DEFAULT_API_RESERVED_CONCURRENCY = 10;

/** A list of strings joined into one variable with commas: none may be empty or hold a comma. */
function checkList(prop: string, value: unknown): void {
  if (!Array.isArray(value) || value.length === 0) {
    throw new RunlogPropsError(
      prop,
      Array.isArray(value)
        ? "must list at least one value, got []"
        : `must be an array of strings (["…"]), got ${describeValue(value)}`,
    );
  }
  for (const item of value) {
    if (typeof item !== "string" || item.trim() === "" || item.includes(",") || Token.isUnresolved(item)) {
      throw new RunlogPropsError(
        prop,
        `must hold non-empty strings written out, without commas; got ${describeValue(item)}`,
      );
    }
  }
}

const positiveInteger = (value: number) =>
  Token.isUnresolved(value) || (Number.isInteger(value) && value >= 1);

function checkAuth(auth: RunlogAuth | undefined): void {
  if (auth === undefined) return;
  const jwt = (auth as { jwt?: RunlogJwtAuth } | null)?.jwt;
  if (typeof jwt !== "object" || jwt === null) {
    throw new RunlogPropsError("auth", "must be { jwt: { issuer, audience, tenantClaim?, adminScope? } }");
  }
  if (
    typeof jwt.issuer !== "string" ||
    !(Token.isUnresolved(jwt.issuer) || /^https:\/\/\S+$/.test(jwt.issuer))
  ) {
    throw new RunlogPropsError(
      "auth.jwt.issuer",
      `must be an https:// URL, got ${describeValue(jwt.issuer)}`,
    );
  }
  checkList("auth.jwt.audience", jwt.audience);
  for (const key of ["tenantClaim", "adminScope"] as const) {
    const value = jwt[key];
    if (value !== undefined && (typeof value !== "string" || !/^\S+$/.test(value))) {
      throw new RunlogPropsError(
        `auth.jwt.${key}`,
        `must be a name without spaces, got ${describeValue(value)}`,
      );
    }
  }
}

/** Check the edge props, each error naming the prop. */
export function validateEdgeProps(props: RunlogEdgeProps): void {
  checkAuth(props.auth);
  if (props.adminPrincipals !== undefined) {
    checkList("adminPrincipals", props.adminPrincipals);
    if (props.auth !== undefined) {
      throw new RunlogPropsError(
        "adminPrincipals",
        "is for IAM auth: with auth.jwt, name an auth.jwt.adminScope",
      );
    }
  }
  const cap = props.maxRunningPerOwner;
  if (cap !== undefined && !(positiveInteger(cap) && cap <= MAX_RUNNING_PER_OWNER)) {
    throw new RunlogPropsError(
      "maxRunningPerOwner",
      `must be a whole number of runs from 1 to ${MAX_RUNNING_PER_OWNER}, got ${describeValue(cap)}`,
    );
  }
  if (props.models !== undefined) checkList("models.allow", props.models?.allow);
  if (props.trustedEventSources !== undefined) {
    checkList("trustedEventSources", props.trustedEventSources);
    // Every sender the bus lets in may write this source: believing its detail.owner lets any of them act as anyone.
    if (props.trustedEventSources.includes(EVENT_SOURCE)) {
      throw new RunlogPropsError(
        "trustedEventSources",
        `must not list ${JSON.stringify(EVENT_SOURCE)}: it is the source every sender on the bus uses, so trusting it would let anyone allowed to put events name detail.owner and act on another owner's runs; list a source only your own publisher can send (the bus policy's events:source condition)`,
      );
    }
  }
  const { rateLimit, burstLimit } = props.throttle ?? {};
  if (
    rateLimit !== undefined &&
    !(Token.isUnresolved(rateLimit) || (Number.isFinite(rateLimit) && rateLimit > 0))
  ) {
    throw new RunlogPropsError(
      "throttle.rateLimit",
      `must be a positive number of requests per second, got ${describeValue(rateLimit)}`,
    );
  }
  if (burstLimit !== undefined && !positiveInteger(burstLimit)) {
    throw new RunlogPropsError(
      "throttle.burstLimit",
      `must be a positive whole number of requests, got ${describeValue(burstLimit)}`,
    );
  }
  const reserved = props.apiReservedConcurrency;
  if (reserved !== undefined && reserved !== false && !positiveInteger(reserved)) {
    throw new RunlogPropsError(
      "apiReservedConcurrency",
      `must be a positive whole number, or false for no reservation (0 would stop the API), got ${describeValue(reserved)}`,
    );
  }
}

/** The Api function's variables: who its callers are, its admins, its cap and its models. */
export function apiEnvironment(props: RunlogEdgeProps): Record<string, string> {
  const jwt = props.auth?.jwt;
  return {
    ...(jwt === undefined ? {} : { [NAMES.auth]: "jwt" }),
    ...(jwt?.tenantClaim === undefined ? {} : { [NAMES.tenantClaim]: jwt.tenantClaim }),
    ...(jwt?.adminScope === undefined ? {} : { [NAMES.adminScope]: jwt.adminScope }),
    ...(props.adminPrincipals === undefined
      ? {}
      : { [NAMES.adminPrincipals]: props.adminPrincipals.join(",") }),
    ...(props.maxRunningPerOwner === undefined
      ? {}
      : { [NAMES.maxRunningPerOwner]: String(props.maxRunningPerOwner) }),
    ...modelsEnvironment(props),
  };
}

/** The allow list of models, on every function that starts or resumes runs (Api, startRun, resume). */
export function modelsEnvironment(props: RunlogEdgeProps): Record<string, string> {
  return props.models === undefined ? {} : { [NAMES.modelsAllow]: props.models.allow.join(",") };
}

/** The startRun function's variables: the models, and the sources whose `detail.owner` is believed. */
export function startRunEnvironment(props: RunlogEdgeProps): Record<string, string> {
  return { ...modelsEnvironment(props), ...trustedSourcesEnvironment(props) };
}

/** The sources whose `detail.owner` an event function believes (startRun, steerRun, resume). */
export function trustedSourcesEnvironment(props: RunlogEdgeProps): Record<string, string> {
  return props.trustedEventSources === undefined
    ? {}
    : { [NAMES.trustedEventSources]: props.trustedEventSources.join(",") };
}
