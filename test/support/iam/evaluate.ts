import { runSimulation } from "@cloud-copilot/iam-simulate";
import type { HandlerName } from "../../../cdk/runlogFunction.ts";
import { ACCOUNT, type AwsCall, UNMAPPED } from "./awsCalls.ts";
import type { PolicyDocument, RolePolicy } from "./template.ts";

/** A call IAM would not allow: who made it, what, on what, and what the simulator said. */
export interface Denial extends AwsCall {
  why: string;
}

const key = (call: AwsCall) =>
  `${call.fn} ${call.action} ${call.resource} ${JSON.stringify(call.context ?? {})}`;

/** Each distinct call once (a test makes the same call many times; IAM decides it the same way). */
export function distinct(calls: readonly AwsCall[]): AwsCall[] {
  return [...new Map(calls.map((call) => [key(call), call])).values()];
}

/**
 * Every recorded call that the calling function's role would not allow, as IAM's own evaluation
 * logic decides it (@cloud-copilot/iam-simulate): an identity-policy request of the function's
 * role in ACCOUNT, with the resource's policy where one is given, no SCP. A call naming a resource IAM does not accept for
 * the action is a denial too, with the simulator's reason.
 */
export async function deniedCalls(
  calls: readonly AwsCall[],
  policies: Record<HandlerName, RolePolicy[]>,
  /** The resource policy of a resource, where IAM needs one (a KMS key's policy). @default none */
  resourcePolicyOf: (resource: string) => PolicyDocument | undefined = () => undefined,
): Promise<Denial[]> {
  const denials: Denial[] = [];
  for (const call of distinct(calls)) {
    if (call.resource === UNMAPPED) {
      denials.push({
        ...call,
        why: "the recorder maps this command to no resource (test/support/iam/awsCalls.ts)",
      });
      continue;
    }
    const result = await runSimulation(
      {
        identityPolicies: policies[call.fn].map((policy) => ({ name: policy.name, policy: policy.document })),
        resourcePolicy: resourcePolicyOf(call.resource),
        serviceControlPolicies: [],
        resourceControlPolicies: [],
        request: {
          action: call.action,
          principal: `arn:aws:iam::${ACCOUNT}:role/${call.fn}`,
          resource: { accountId: ACCOUNT, resource: call.resource },
          contextVariables: call.context ?? {},
        },
      },
      {},
    );
    if (result.resultType === "error")
      denials.push({ ...call, why: `invalid request: ${JSON.stringify(result.errors)}` });
    else if (result.overallResult !== "Allowed") denials.push({ ...call, why: result.overallResult });
  }
  return denials;
}

/** An IAM pattern (`*` any run of characters, `?` one) as a whole-string, case-sensitive match. */
function matches(pattern: string, value: string, ignoreCase = false): boolean {
  const source = pattern
    .replace(/[.+^${}()|[\]\\]/g, "\\$&")
    .replace(/\*/g, ".*")
    .replace(/\?/g, ".");
  return new RegExp(`^${source}$`, ignoreCase ? "i" : "").test(value);
}

/**
 * Every grant (function × allowed action × resource pattern) that no recorded call of that
 * function used, as `"<fn> <action> <resource pattern>"`, sorted.
 */
export function unusedGrants(
  calls: readonly AwsCall[],
  policies: Record<HandlerName, RolePolicy[]>,
): string[] {
  const unused: string[] = [];
  for (const [fn, own] of Object.entries(policies) as [HandlerName, RolePolicy[]][]) {
    const made = calls.filter((call) => call.fn === fn);
    for (const statement of own.flatMap((policy) => policy.document.Statement)) {
      if (statement.Effect !== "Allow") continue;
      for (const action of [statement.Action].flat()) {
        for (const resource of [statement.Resource].flat()) {
          // Actions are case-insensitive in IAM; resources are not.
          const used = made.some(
            (call) => matches(action, call.action, true) && matches(resource, call.resource),
          );
          if (!used) unused.push(`${fn} ${action} ${resource}`);
        }
      }
    }
  }
  return [...new Set(unused)].sort();
}
