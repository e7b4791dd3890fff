import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type Synthesized, synthesize, synthesizeConstruct } from "./synth.ts";

/**
 * CloudFormation replaces a resource whose logical id changes: a new, empty table and the old
 * one retained apart from the stack, a new state machine whose running executions are lost to
 * the loop. A refactor that moves a construct (a new id, a new scope) changes logical ids, so
 * every deployed stack's ids are held in a committed file and a change fails here, before a deploy.
 */
const SNAPSHOT = join(import.meta.dirname, "fixtures", "logicalIds.json");
/** Set to rewrite the snapshot, deliberately, after reading what would be replaced. */
const UPDATE = "RUNLOG_UPDATE_LOGICAL_IDS";
const AGENTS = join(import.meta.dirname, "fixtures", "agents.ts");

/** The ids that hold state or running work: each must never change under a deployed stack. */
const STATEFUL = {
  stack: { table: "RunsTable96AAA230", stateMachine: "RunStateMachine106B9D3D" },
  construct: { table: "AgentsRunsTable9A909F24", stateMachine: "AgentsRunStateMachine9D432EFA" },
};

/**
 * `logicalId: Type` of every resource, sorted. A published version's id carries a hash of its
 * function's code and configuration, and is meant to change with them (cdk/runStateMachine.ts):
 * that hash is left out.
 */
function logicalIds(s: Synthesized): string[] {
  const resources = s.template.toJSON().Resources as Record<string, { Type: string }>;
  return Object.entries(resources)
    .map(([id, { Type }]) =>
      Type === "AWS::Lambda::Version"
        ? `${id.replace(/CurrentVersion[0-9A-Fa-f]+$/, "CurrentVersion<hash>")}: ${Type}`
        : `${id}: ${Type}`,
    )
    .sort();
}

const current = { stack: synthesize(), construct: synthesizeConstruct({ agentsModule: AGENTS }) };
const found = { stack: logicalIds(current.stack), construct: logicalIds(current.construct) };

const explain = (which: string, committed: readonly string[], now: readonly string[]) => {
  const gone = committed.filter((id) => !now.includes(id));
  const added = now.filter((id) => !committed.includes(id));
  return [
    `The ${which}'s logical ids changed. CloudFormation REPLACES a resource whose logical id changes`,
    "(the table: a new empty one; the state machine: a new one, its running executions cut off).",
    `Gone (deleted or replaced on deploy): ${gone.join(", ") || "none"}`,
    `Added: ${added.join(", ") || "none"}`,
    "If nothing stateful is among them and the change is meant, update the snapshot deliberately:",
    `${UPDATE}=1 npx vitest run test/cdk/logicalIds.test.ts, and commit test/cdk/fixtures/logicalIds.json.`,
  ].join("\n");
};

describe("the template's logical ids", () => {
  if (process.env[UPDATE]) writeFileSync(SNAPSHOT, `${JSON.stringify(found, null, 2)}\n`);
  const committed = JSON.parse(readFileSync(SNAPSHOT, "utf8")) as typeof found;

  it.each(["stack", "construct"] as const)("of the %s are the committed ones", (which) => {
    expect(found[which], explain(which, committed[which], found[which])).toEqual(committed[which]);
  });

  it.each(["stack", "construct"] as const)(
    "keep the %s's table and state machine where deployed stacks have them",
    (which) => {
      const s = current[which];
      // Asserted apart from the snapshot, so updating it cannot move these by accident.
      expect(s.logicalId(s.runlog.table)).toBe(STATEFUL[which].table);
      expect(s.logicalId(s.runlog.stateMachine)).toBe(STATEFUL[which].stateMachine);
      expect(found[which]).toEqual(
        expect.arrayContaining([
          `${STATEFUL[which].table}: AWS::DynamoDB::Table`,
          `${STATEFUL[which].stateMachine}: AWS::StepFunctions::StateMachine`,
        ]),
      );
    },
  );

  it("leaves only the versions' code hashes out", () => {
    expect(found.stack.filter((id) => id.includes("<hash>"))).toHaveLength(5);
    expect(found.stack.filter((id) => id.endsWith(": AWS::Lambda::Function"))).toHaveLength(12);
  });
});
