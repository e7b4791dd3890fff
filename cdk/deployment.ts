import { createHash } from "node:crypto";
import { Stack, Token } from "aws-cdk-lib";
import type { IConstruct } from "constructs";

/** The longest deployment name: room for a suffix within an event bus name's 256 characters. */
export const MAX_DEPLOYMENT_NAME = 200;

// Not "." either: a bus name cannot hold "/", so busName writes the separators as ".".
const KEPT = /[^A-Za-z0-9_-]/g;

/**
 * The name that sets one runlog deployment apart from every other in its account and region:
 * the name of the nearest stack whose name is known at synth (a nested stack's is a token, so
 * its parent's), then the ids on the way down to `scope`, "Default" left out as in logical ids,
 * joined by "/". Stack names hold no "/" or "." and ids none once sanitized, so two constructs
 * get two names; an id that sanitizing changed, or a name too long, gets a hash of the full path.
 * `RunlogStack` "Runlog" is `Runlog`, a construct "Agents" in stack "Prod" is `Prod/Agents`.
 * Never a token: it names buses and log groups and is the metrics' `deployment` dimension.
 */
export function deploymentName(scope: IConstruct): string {
  let stack = Stack.of(scope);
  while (Token.isUnresolved(stack.stackName) && stack.nestedStackParent) {
    stack = Stack.of(stack.nestedStackParent);
  }
  // A top-level stack's name is a token only if a token was given for it: its artifact id is not.
  const root = Token.isUnresolved(stack.stackName) ? stack.artifactId : stack.stackName;
  const scopes = scope.node.scopes;
  const ids = scopes.slice(scopes.indexOf(stack) + 1).map((s) => s.node.id);
  const parts = ids.filter((id) => id !== "Default");
  const kept = parts.map((id) => id.replace(KEPT, ""));
  const name = [root.replace(KEPT, ""), ...kept].join("/");
  const changed = kept.some((id, i) => id !== parts[i]) || name.length > MAX_DEPLOYMENT_NAME;
  if (!changed) return name;
  const hash = createHash("sha256")
    .update([root, ...ids].join("/"))
    .digest("hex")
    .slice(0, 8);
  return `${name.slice(0, MAX_DEPLOYMENT_NAME - hash.length - 1)}/${hash}`;
}

/** The name of a deployment's own event bus: its name with "." for "/", which bus names cannot hold. */
export function busName(deployment: string): string {
  return `${deployment.replaceAll("/", ".")}-Events`;
}
