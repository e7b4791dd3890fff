import { expect } from "vitest";
import { CRASH_POINTS } from "../../../lib/ports/runtime.ts";
import type { ShownEvent } from "../../support/cli.ts";

/** One agent story the crash matrix crashes at every point. Texts carry the case id, so side effects are countable. */
export interface Scenario {
  name: string;
  /** The scripted model's turns for the case `id`. */
  turns(id: string): unknown[];
  /** `@n` of the first process's crash (later processes crash at the first pass). @default 1 */
  nth?: number;
  /** How many processes may crash before the driver stops injecting. @default 2 */
  crashBudget?: number;
  /** Crash the run, then fork it and drive the fork to completion instead. */
  fork?: boolean;
  /** What the final log must show for the scenario to have been exercised at all. */
  exercised?(log: ShownEvent[]): void;
}

const note = (text: string) => ({ name: "write_note", arguments: { text } });
const weather = (city: string) => ({ name: "get_weather", arguments: { city } });
const DONE = { text: "Done", stop: "stop" };
const types = (log: ShownEvent[]) =>
  log.map((e) => (e.type === "model_response" ? `${e.type}:${e.stop}` : e.type));

export const SCENARIOS: Scenario[] = [
  { name: "one-tool", turns: (id) => [{ toolCalls: [note(`${id} only`)] }, DONE] },
  {
    name: "parallel-tools",
    nth: 2,
    turns: (id) => [{ toolCalls: [note(`${id} a`), note(`${id} b`), note(`${id} c`)] }, DONE],
  },
  {
    name: "idempotent-tool",
    turns: () => [{ toolCalls: [weather("Lisbon"), weather("Porto")] }, DONE],
    exercised: (log) => {
      const results = log.filter((e) => e.type === "tool_result" && e.name === "get_weather");
      expect(results).toHaveLength(2);
      // An interrupted idempotent call is run again, never answered as interrupted.
      for (const result of results)
        expect(result).toMatchObject({ isError: false, content: expect.any(String) });
      for (const result of results) expect(result.interrupted).toBeUndefined();
    },
  },
  {
    name: "approval",
    crashBudget: 3,
    turns: (id) => [
      {
        toolCalls: [
          { name: "send_email", arguments: { to: `${id}@example.com`, subject: "Lunch" } },
          note(`${id} n`),
        ],
      },
      DONE,
    ],
    exercised: (log) => {
      expect(log.filter((e) => e.type === "tool_decided")).toEqual([
        expect.objectContaining({ callId: "call_0_0", approved: true }),
      ]);
    },
  },
  {
    name: "model-failure",
    turns: (id) => [{ toolCalls: [note(`${id} before failure`)] }, { error: "connection" }, DONE],
    exercised: (log) => expect(types(log)).toContain("model_failed"),
  },
  {
    name: "max-output",
    turns: (id) => [
      { toolCalls: [note(`${id} before limit`)] },
      { text: "The first half of a long", stop: "max_output" },
      { text: " answer, continued.", stop: "stop" },
    ],
    exercised: (log) => {
      const stops = types(log).filter((t) => t.startsWith("model_response"));
      expect(stops.slice(-2)).toEqual(["model_response:max_output", "model_response:stop"]);
    },
  },
  {
    name: "fork",
    fork: true,
    turns: (id) => [{ toolCalls: [note(`${id} x`), weather("Faro"), note(`${id} y`)] }, DONE],
  },
];

/** The crash points of RUNLOG_CRASH_AT, every one of which the matrix crashes at. */
export const POINTS = CRASH_POINTS;
