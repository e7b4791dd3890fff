import { appendFile, mkdir } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import type { Agent, AgentContext } from "../ports/tool.ts";
import { defineTool } from "./defineTool.ts";

const FORECASTS = ["sunny, 24°C", "light rain, 17°C", "cloudy, 19°C", "windy, 15°C", "clear, 21°C"];

/** A pure tool: the same city always gets the same forecast. */
export const getWeather = defineTool({
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

/** The demo agent: plans a day out with a weather lookup and notes. */
export function demoAgent(context: AgentContext): Agent {
  return {
    name: "demo",
    instructions:
      "You help plan a day out. Check the weather, write down what to remember, then answer briefly.",
    tools: [getWeather, writeNote(context.dataDir)],
    defaultModel: "scripted:demo",
  };
}
