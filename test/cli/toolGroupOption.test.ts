import { describe, expect, it } from "vitest";
import { toolGroupsOption } from "../../lib/cli/toolGroupOption.ts";
import { UsageError } from "../../lib/cli/usage.ts";

describe("runlog serve --tool-group", () => {
  it("reads NAME=TOOL,TOOL, repeated, as the groups a stack's toolGroups names", () => {
    expect(toolGroupsOption(["payments=issue_refund,charge_card", "mail=send_email"])).toEqual({
      payments: ["issue_refund", "charge_card"],
      mail: ["send_email"],
    });
    expect(toolGroupsOption(undefined)).toBeUndefined();
  });

  it.each([
    ["no =", ["payments"], /NAME=TOOL/],
    ["a group given twice", ["a=x", "a=y"], /given twice/],
    ["an empty group", ["a="], /--tool-group\.a\.tools must name at least one tool/],
    ["a tool in two groups", ["a=x", "b=x"], /in group a too/],
    ["the default's name", ["default=x"], /default RunTool/],
  ])("refuses %s as a usage error", (_, values, message) => {
    expect(() => toolGroupsOption(values)).toThrow(UsageError);
    expect(() => toolGroupsOption(values)).toThrow(message);
  });
});
