import { appendFile, mkdir } from "node:fs/promises";
import { join } from "node:path";
import * as z from "zod";
import type { Agent, AgentContext } from "../ports/tool.ts";
import { defineTool } from "./defineTool.ts";

const FORECASTS = ["sunny, 24°C", "light rain, 17°C", "cloudy, 19°C", "windy, 15°C", "clear, 21°C"];

/** A pure tool: the same city always gets the same forecast. */
const getWeather = () =>
  defineTool({
    name: "get_weather",
    description: "Get today's weather forecast for a city.",
    parameters: z.object({ city: z.string().min(1).describe("The city to look up") }),
    idempotent: true,
    run: ({ city }) => {
      const index = [...city.toLowerCase()].reduce((sum, ch) => sum + ch.charCodeAt(0), 0) % FORECASTS.length;
      return `${city}: ${FORECASTS[index]}`;
    },
  });

/** A tool with a real side effect: one line appended to notes.txt in the data dir. */
export function writeNote(dataDir: string) {
  return defineTool({
    name: "write_note",
    description: "Append a one-line note to the user's notes file.",
    parameters: z.object({ text: z.string().min(1).max(500).describe("The note, one line") }),
    run: async ({ text }) => {
      await mkdir(dataDir, { recursive: true });
      await appendFile(join(dataDir, "notes.txt"), `${text.replaceAll("\n", " ")}\n`);
      return `noted: ${text}`;
    },
  });
}

/** A tool a person must approve: one line `to|subject` appended to outbox.txt in the data dir. */
export function sendEmail(dataDir: string) {
  return defineTool({
    name: "send_email",
    description: "Send an email. A person approves every email before it is sent.",
    parameters: z.object({
      to: z.string().min(3).max(200).describe("The recipient's address"),
      subject: z.string().min(1).max(200).describe("The subject line"),
    }),
    needsApproval: true,
    run: async ({ to, subject }) => {
      await mkdir(dataDir, { recursive: true });
      await appendFile(join(dataDir, "outbox.txt"), `${oneLine(to)}|${oneLine(subject)}\n`);
      return `sent to ${to}: ${subject}`;
    },
  });
}

/** A slow tool: sleeps the given milliseconds, and stops early when the run is cancelled. */
const wait = () =>
  defineTool({
    name: "wait",
    description: "Wait for the given number of milliseconds.",
    parameters: z.object({ ms: z.number().int().min(0).max(600_000).describe("How long to wait, in ms") }),
    idempotent: true,
    timeoutMs: 610_000,
    run: ({ ms }, { signal }) =>
      new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => resolve(`waited ${ms} ms`), ms);
        signal.addEventListener("abort", () => {
          clearTimeout(timer);
          reject(new Error("stopped"));
        });
      }),
  });

const oneLine = (text: string) => text.replaceAll(/[\n|]/g, " ");

/**
 * The tools that need no data dir, made once, when the demo agent is first asked for: a process
 * that imports runlog and never runs the demo builds none of their schemas.
 */
let shared: { getWeather: ReturnType<typeof getWeather>; wait: ReturnType<typeof wait> } | undefined;

/** The demo agent: plans a day out with a weather lookup, notes, emails (approved first) and waits. */
export function demoAgent(context: AgentContext): Agent {
  shared ??= { getWeather: getWeather(), wait: wait() };
  return {
    name: "demo",
    instructions:
      "You help plan a day out. Check the weather, write down what to remember, then answer briefly.",
    tools: [shared.getWeather, writeNote(context.dataDir), sendEmail(context.dataDir), shared.wait],
    defaultModel: "scripted:demo",
  };
}
