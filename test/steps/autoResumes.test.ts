import { describe, expect, it } from "vitest";
import { RESUMED_BY } from "../../lib/core/eventConstants.ts";
import { autoResumesAfter, countedAutoResumes, nextAutoResumeAt } from "../../lib/steps/autoResumes.ts";

const NOW = Date.parse("2026-06-01T12:00:00Z");

describe("autoResumesAfter", () => {
  it.each([
    ["the sweeper's first resume", undefined, { by: "sweeper" }, { count: 1, lastAt: NOW }],
    ["the sweeper's next resume", { count: 2, lastAt: 5 }, { by: "sweeper" }, { count: 3, lastAt: NOW }],
    ["a new message", { count: 4, lastAt: 5 }, { by: "person", input: "more" }, { count: 0 }],
    ["a new message the sweeper never brings", undefined, { input: "more" }, { count: 0 }],
    ["a person's resume", { count: 2, lastAt: 5 }, { by: "person" }, undefined],
    ["a handoff", { count: 2, lastAt: 5 }, { by: "handoff" }, undefined],
    ["a resume that names nobody", { count: 2, lastAt: 5 }, {}, undefined],
  ])("%s", (_, previous, request, expected) => {
    expect(autoResumesAfter(previous, request, NOW)).toEqual(expected);
  });
});

describe("nextAutoResumeAt", () => {
  const policy = { backoffMs: 1_000, maxBackoffMs: 5_000 };
  it.each([
    ["no record", undefined, undefined],
    ["a fresh budget", { count: 0 }, undefined],
    ["one resume", { count: 1, lastAt: NOW }, NOW + 1_000],
    ["three resumes: the wait doubled twice", { count: 3, lastAt: NOW }, NOW + 4_000],
    ["many resumes: capped", { count: 9, lastAt: NOW }, NOW + 5_000],
  ])("%s", (_, record, expected) => {
    expect(nextAutoResumeAt(record, policy)).toBe(expected);
  });
});

describe("a sweeper's claim the log never followed", () => {
  const claim = { count: 3, lastAt: NOW - 1_000 };

  it("to open a generation: is not counted and sets no back-off; a claim the log went on from is", () => {
    expect(countedAutoResumes(claim, NOW - 5_000, false)).toEqual({ count: 2 });
    expect(countedAutoResumes(claim, NOW - 1_000, false)).toEqual(claim);
    expect(countedAutoResumes(undefined, NOW, false)).toBeUndefined();
  });

  it("to complete an opened generation (which writes nothing): counts, so a run dying there every time reaches the budget", () => {
    expect(countedAutoResumes(claim, NOW - 5_000, true)).toEqual(claim);
    const sweeper = { by: RESUMED_BY.sweeper };
    expect(autoResumesAfter(claim, sweeper, NOW, NOW - 5_000, true)).toEqual({ count: 4, lastAt: NOW });
  });

  it("is replaced by the sweeper's next claim, not added to", () => {
    const sweeper = { by: RESUMED_BY.sweeper };
    expect(autoResumesAfter(claim, sweeper, NOW, NOW - 5_000)).toEqual({ count: 3, lastAt: NOW });
    expect(autoResumesAfter(claim, sweeper, NOW, NOW - 500)).toEqual({ count: 4, lastAt: NOW });
  });
});
