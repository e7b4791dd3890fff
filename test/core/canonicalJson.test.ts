import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalValue } from "../../lib/core/canonicalJson.ts";

/**
 * The definition every stored event's text was written by: JSON.stringify with each object
 * rebuilt from its entries sorted by key. canonicalValue must give the same text for any value,
 * or a payload stored by its hash, or a fork's copy, would no longer be recognised.
 */
const byDefinition = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );

/** Keys that sort differently by code unit and by number, and keys JSON must escape. */
const anyKey = fc.oneof(
  fc.string(),
  fc.constantFrom("0", "1", "9", "10", "07", "-1", "1.5", "4294967294", "4294967295", "__proto__"),
  fc.constantFrom("a\u0000b", '"', "\\", "\u2028", "é", "\ud83d\ude00", "\ud800", "B", "a", "Z"),
);

/** JSON values and what JSON.stringify treats specially: undefined, non-finite numbers, dates, -0. */
const anyValue = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    fc.string(),
    fc.double(),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.constant(undefined),
    fc.constant(-0),
    fc.date({ noInvalidDate: true }),
    fc.array(tie("value")),
    fc.dictionary(anyKey, tie("value")),
  ),
})).value;

describe("canonicalValue", () => {
  it("writes what the sorted-entries definition writes, for any value", () => {
    fc.assert(
      fc.property(anyValue, (value) => {
        expect(canonicalValue(value)).toBe(byDefinition(value));
      }),
      { numRuns: 2000 },
    );
  });

  it("puts array-index keys first in numeric order, the rest by code unit", () => {
    expect(canonicalValue({ b: 1, 10: 2, a: 3, 9: 4, "07": 5, B: 6 })).toBe(
      '{"9":4,"10":2,"07":5,"B":6,"a":3,"b":1}',
    );
  });

  it("leaves out what JSON leaves out, writes null where JSON does, and calls toJSON", () => {
    const at = new Date("2026-12-07T00:00:00.000Z");
    expect(canonicalValue({ f: () => 1, u: undefined, n: Number.NaN, i: [undefined, Infinity], at })).toBe(
      '{"at":"2026-12-07T00:00:00.000Z","i":[null,null],"n":null}',
    );
    expect(canonicalValue(undefined)).toBeUndefined();
  });

  it("refuses a bigint as JSON.stringify does", () => {
    expect(() => canonicalValue({ n: 1n })).toThrow(TypeError);
  });
});
