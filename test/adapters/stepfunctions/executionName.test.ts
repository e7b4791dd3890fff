import { describe, expect, it } from "vitest";
import {
  executionArn,
  executionName,
  executionNameOf,
  MAX_EXECUTION_NAME,
  ownerOf,
} from "../../../lib/adapters/stepfunctions/index.ts";
import { InvalidInputError } from "../../../lib/core/errors.ts";

const VALID = /^[A-Za-z0-9_-]{1,80}$/;

describe("execution names", () => {
  it("name a plain run id and generation readably", () => {
    expect(executionName("run_lx2abc-01", 3)).toBe("run_lx2abc-01-g3");
  });

  it.each([
    ["a run id with dots", "my.run.1"],
    ["a run id of 128 characters", "r".repeat(128)],
    ["a run id just too long for the suffix", "a".repeat(78)],
  ])("hash %s into a valid name of at most 80 characters", (_, runId) => {
    const name = executionName(runId, 12);
    expect(name).toMatch(VALID);
    expect(name.length).toBeLessThanOrEqual(MAX_EXECUTION_NAME);
    expect(name.endsWith("-g12")).toBe(true);
    expect(executionName(runId, 12)).toBe(name);
  });

  it("keep run ids apart that differ only in characters the name cannot hold", () => {
    expect(executionName("a.b", 1)).not.toBe(executionName("a_b", 1));
    expect(executionName("a.b", 1)).not.toBe(executionName("a,b", 1));
    expect(executionName("x".repeat(100), 1)).not.toBe(executionName(`${"x".repeat(99)}y`, 1));
  });

  it("give a run created again under an old id names of its own, within Step Functions' limits", () => {
    const before = executionName("r", 1, "2026-01-01T00:00:00.000Z");
    const again = executionName("r", 1, "2026-03-01T00:00:00.000Z");
    expect(before).not.toBe(again);
    expect(before).toMatch(/^r-[0-9a-z]+-g1$/);
    expect(executionName("r", 1, "2026-01-01T00:00:00.000Z")).toBe(before);
    const long = executionName("x".repeat(128), 7, "2026-01-01T00:00:00.000Z");
    expect(long).toMatch(VALID);
    expect(long.endsWith("-g7")).toBe(true);
    expect(long).not.toBe(executionName("x".repeat(128), 7, "2026-03-01T00:00:00.000Z"));
  });

  it("give every generation its own name", () => {
    expect(executionName("r", 1)).not.toBe(executionName("r", 2));
    expect(executionName("r.1", 1)).not.toBe(executionName("r.1", 2));
  });

  it("reject a generation that is not a positive integer", () => {
    expect(() => executionName("r", 0)).toThrow(InvalidInputError);
    expect(() => executionName("r", 1.5)).toThrow(/generation/);
  });

  it("round-trip owners and ignore owners that are not executions", () => {
    expect(executionNameOf(ownerOf("r-g2"))).toBe("r-g2");
    expect(executionNameOf("local:host:12:abcd")).toBeUndefined();
    expect(executionNameOf("sfn:bad name")).toBeUndefined();
  });

  it("build the execution ARN from the state machine ARN", () => {
    expect(executionArn("arn:aws:states:eu-west-1:123456789012:stateMachine:Run", "r-g1")).toBe(
      "arn:aws:states:eu-west-1:123456789012:execution:Run:r-g1",
    );
    expect(() => executionArn("arn:aws:lambda:eu-west-1:1:function:f", "r-g1")).toThrow(InvalidInputError);
  });
});
