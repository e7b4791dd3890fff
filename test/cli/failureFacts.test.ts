import { describe, expect, it } from "vitest";
import { printFailure } from "../../lib/cli/failure.ts";
import { TooManyRunsError } from "../../lib/core/errors.ts";
import { capturedIo } from "./support.ts";

describe("a failure printed with --json", () => {
  it("carries the error's facts as the HTTP API does: an owner's cap with too_many_runs", () => {
    const { io, out, err } = capturedIo();
    printFailure(io, new TooManyRunsError("principal:ana", 3), true);
    expect(JSON.parse(out[0]!)).toEqual({
      error: {
        code: "too_many_runs",
        message: expect.stringContaining("already has 3 runs running"),
        cap: 3,
      },
    });
    expect(err[0]).toMatch(/^runlog: principal:ana already has 3 runs running/);
  });
});
