import { describe, expect, it } from "vitest";
import { columns } from "../../lib/cli/table.ts";

describe("columns", () => {
  it("makes each column as wide as its widest cell, numbers to the right, nothing after the last", () => {
    const rows = [
      ["idem-0123456789abcdef0123456789abcdef", "completed", "7 events", "a"],
      ["r1", "paused", "12 events", "bb"],
    ];
    expect(columns(rows, ["left", "left", "right"])).toEqual([
      "idem-0123456789abcdef0123456789abcdef  completed   7 events  a",
      "r1                                     paused     12 events  bb",
    ]);
  });

  it("is empty for no rows and leaves a single column as it is", () => {
    expect(columns([])).toEqual([]);
    expect(columns([["a"], ["bbb"]])).toEqual(["a", "bbb"]);
  });
});
