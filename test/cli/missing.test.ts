import { describe, expect, it } from "vitest";
import { whenMissing } from "../../lib/cli/missing.ts";

const failure = (code: string) => Object.assign(new Error(code), { code });

describe("whenMissing", () => {
  it("answers the fallback for a path that does not exist", () => {
    expect(whenMissing("none")(failure("ENOENT"))).toBe("none");
    expect(whenMissing(undefined)(failure("ENOTDIR"))).toBeUndefined();
  });

  it("throws any other failure as it was, never taking it for absence", () => {
    const denied = failure("EACCES");
    expect(() => whenMissing("none")(denied)).toThrow(denied);
    expect(() => whenMissing("none")(new Error("disk on fire"))).toThrow("disk on fire");
  });
});
