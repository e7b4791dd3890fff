import { describe, expect, it } from "vitest";
import { describeTarget, describeValue, figuresTable, verdict } from "../../bench/src/short/targets.ts";

describe("a figure beside its target", () => {
  it.each([
    [39.9, { limit: 40, unit: "ms" }, "met"],
    [40, { limit: 40, unit: "ms" }, "met"],
    [52, { limit: 40, unit: "ms" }, "not met (by 12 ms, 30% over)"],
    [2.9, { limit: 3, unit: "×" }, "met"],
    [3.8, { limit: 3, unit: "×" }, "not met (by 0.8×, 27% over)"],
    [undefined, { limit: 3, unit: "×" }, "not measured"],
    [Number.NaN, { limit: 100, unit: "ms" }, "not measured"],
  ] as const)("%s against %o is %s", (value, target, expected) => {
    expect(verdict(value, target)).toBe(expected);
  });

  it("describes targets in ms and as ratios of what they compare with", () => {
    expect(describeTarget({ limit: 150, unit: "ms" })).toBe("≤ 150 ms");
    expect(describeTarget({ limit: 1.5, unit: "×", of: "the fifth run" })).toBe("≤ 1.5× the fifth run");
  });

  it("refuses a target that is not a positive limit in ms or ×, naming what was wrong", () => {
    expect(() => verdict(1, { limit: 0, unit: "ms" })).toThrow(
      "target.limit must be a positive number, got 0",
    );
    expect(() => verdict(1, { limit: Number.NaN, unit: "ms" })).toThrow("target.limit");
    expect(() => describeTarget({ limit: 1, unit: "s" as "ms" })).toThrow(
      'target.unit must be "ms" or "×", got "s"',
    );
  });

  it("shows a ratio with the ms it is computed from, and a figure without a target in its own unit", () => {
    expect(
      describeValue({ figure: "import", value: 3.456, ms: 280.04, target: { limit: 3, unit: "×" } }),
    ).toBe("3.46× (280 ms)");
    expect(describeValue({ figure: "throughput", value: 612.3, unit: "turns/s" })).toBe("612.3 turns/s");
    expect(describeValue({ figure: "missing" })).toBe("—");
  });

  it("tabulates every figure, saying why one could not run", () => {
    const table = figuresTable([
      { figure: "resume", value: 52, target: { limit: 40, unit: "ms" } },
      { figure: "bundles", note: "synth failed | exit 1" },
    ]);
    expect(table.split("\n")).toEqual([
      "| figure | measured | target | met |",
      "| --- | ---: | --- | --- |",
      "| resume | 52 ms | ≤ 40 ms | not met (by 12 ms, 30% over) |",
      "| bundles | could not run: synth failed / exit 1 |  |  |",
    ]);
  });
});
