import type { Script } from "./script.ts";

/** The built-in `scripted:demo` script: a weather lookup, two notes written in parallel, a final answer. */
export const DEMO_SCRIPT: Script = {
  turns: [
    { toolCalls: [{ name: "get_weather", arguments: { city: "Lisbon" } }] },
    {
      toolCalls: [
        { name: "write_note", arguments: { text: "Pack sunglasses" } },
        { name: "write_note", arguments: { text: "Book a table by the river" } },
      ],
    },
    {
      text:
        "I checked today's weather in Lisbon and wrote down two things for your day out: " +
        "pack sunglasses, and book a table by the river.",
      stop: "stop",
    },
  ],
};
