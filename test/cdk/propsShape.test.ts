import { join } from "node:path";
import { App, Duration, Lazy, Stack } from "aws-cdk-lib";
import { describe, expect, it } from "vitest";
import { RunlogPropsError } from "../../cdk/index.ts";
import { nearestName } from "../../cdk/propsShape.ts";
import { PROP_NAMES } from "../../cdk/propsValidation.ts";
import { Runlog } from "../../cdk/runlog.ts";
import { RunlogStack } from "../../cdk/runlogStack.ts";

const AGENTS = join(import.meta.dirname, "fixtures", "agents.ts");

/** What `new Runlog` threw for these props (given as a JavaScript caller could). */
function refusal(props: unknown): unknown {
  const stack = new Stack(new App({ context: { "aws:cdk:bundling-stacks": [] } }), "Bad");
  try {
    new Runlog(stack, "Agents", props as never);
  } catch (error) {
    return error;
  }
  return undefined;
}

describe("props of the wrong kind", () => {
  it.each<[string, unknown, string, string]>([
    ["props null", null, "props", "null"],
    ["props a string", "agents.ts", "props", 'the string "agents.ts"'],
    ["sweepEvery a number", { sweepEvery: 5 }, "sweepEvery", "the number 5"],
    ["executionTimeout a number", { executionTimeout: 3600 }, "executionTimeout", "the number 3600"],
    ["redrive.after a number", { redrive: { after: 600 } }, "redrive.after", "the number 600"],
    ["modelKeySecret a number", { modelKeySecret: 42 }, "modelKeySecret", "the number 42"],
    ["modelKeySecret an object", { modelKeySecret: { name: "k" } }, "modelKeySecret", "an object"],
    ["retentionDays a string", { retentionDays: "30" }, "retentionDays", 'the string "30"'],
    [
      "retentionDays a token",
      { retentionDays: Lazy.number({ produce: () => 30 }) },
      "retentionDays",
      "an unresolved token (a number)",
    ],
    ["statusShards a string", { statusShards: "8" }, "statusShards", 'the string "8"'],
    ["dashboard a string", { dashboard: "no" }, "dashboard", 'the string "no"'],
  ])("%s: a RunlogPropsError naming the prop and what it got", (_, bad, prop, got) => {
    const props = bad === null || typeof bad !== "object" ? bad : { agentsModule: AGENTS, ...bad };
    const error = refusal(props);
    expect(error).toBeInstanceOf(RunlogPropsError);
    expect(error).toMatchObject({ prop, message: expect.stringContaining(got) });
  });

  it("still takes a Duration, a secret's name and a number where they belong", () => {
    expect(
      refusal({
        agentsModule: AGENTS,
        sweepEvery: Duration.minutes(5),
        executionTimeout: Duration.hours(1),
        modelKeySecret: "runlog/model-key",
        retentionDays: 30,
      }),
    ).toBeUndefined();
  });
});

describe("unknown props", () => {
  it("refuses a misspelled prop, naming it and the prop it most likely meant", () => {
    const error = refusal({ agentsModule: AGENTS, retentionDay: 30 });
    expect(error).toBeInstanceOf(RunlogPropsError);
    expect(error).toMatchObject({ prop: "retentionDay", message: expect.stringContaining("retentionDays") });
  });

  it("refuses a prop like none, suggesting nothing", () => {
    const error = refusal({ agentsModule: AGENTS, colour: "blue" });
    expect(error).toMatchObject({ prop: "colour" });
    expect((error as Error).message).not.toContain("did you mean");
  });

  it.each([
    ["retentionDay", "retentionDays"],
    ["RetentionDays", "retentionDays"],
    ["sweepevery", "sweepEvery"],
    ["vpcEndpoint", "vpcEndpoints"],
    ["statusShard", "statusShards"],
    ["agentModule", "agentsModule"],
    ["x", undefined],
    ["timeout", undefined],
  ])("%s is nearest %s", (name, near) => {
    expect(nearestName(name, PROP_NAMES)).toBe(near);
  });

  it("RunlogStack passes its StackProps to the stack, not to the construct as unknown props", () => {
    const app = new App({ context: { "aws:cdk:bundling-stacks": [] } });
    const stack = new RunlogStack(app, "Tagged", {
      description: "d",
      tags: { team: "x" },
      terminationProtection: true,
      agentsModule: AGENTS,
    });
    expect(stack.terminationProtection).toBe(true);
    expect(() => new RunlogStack(app, "Typo", { retentionDay: 30 } as never)).toThrow(
      expect.objectContaining({ name: "RunlogPropsError", prop: "retentionDay" }),
    );
  });
});
