import { describe, expect, it } from "vitest";
import { COMMANDS } from "../../lib/cli/commandTable.ts";
import { CONFIG_OPTIONS } from "../../lib/cli/configCommand.ts";
import { COMMAND_HELP, HELP } from "../../lib/cli/help.ts";
import { main } from "../../lib/cli/main.ts";
import { REPLAY_OPTIONS } from "../../lib/cli/replay.ts";
import { SERVE_OPTIONS } from "../../lib/cli/serve.ts";
import { RUN_HERE, stepsOptions } from "../../lib/cli/stepsPlace.ts";
import { BASE, COMMON, REMOTE } from "../../lib/cli/usage.ts";
import { BUILT_IN_PREFIXES } from "../../lib/runtime/models.ts";
import { capturedIo } from "./support.ts";

/** The flags each command parses, as main() and the commands with their own parsers give them. */
const PARSED: Record<string, Record<string, unknown>> = {
  ...Object.fromEntries(
    Object.entries(COMMANDS).map(([name, command]) => [
      name,
      { ...COMMON, ...REMOTE, ...command.options, ...stepsOptions(name) },
    ]),
  ),
  demo: { ...BASE, ...RUN_HERE },
  replay: REPLAY_OPTIONS,
  serve: SERVE_OPTIONS,
  config: CONFIG_OPTIONS,
  // `runlog --version` is the command under its other name.
  version: { version: true },
};
/** Flags a command's usage line may leave to the whole help's closing notes. */
const SHARED = new Set(["dir", "agents", "help", "url", "token"]);

const flagsIn = (text: string) => new Set([...text.matchAll(/--([a-z][a-z-]*)/g)].map((match) => match[1]!));

async function cli(...argv: string[]) {
  const { io, out, err } = capturedIo();
  const code = await main(argv, io, {});
  return { code, stdout: out.join("\n"), stderr: err.join("\n") };
}

describe("the CLI's help", () => {
  it("`help help` is the whole help, and the whole help names every built-in model prefix", async () => {
    expect(await cli("help", "help")).toMatchObject({ code: 0, stdout: HELP });
    for (const prefix of BUILT_IN_PREFIXES) expect(HELP).toContain(` ${prefix}:`);
  });

  it("has usage lines for every command, and only for commands there are", () => {
    expect(Object.keys(COMMAND_HELP).sort()).toEqual(Object.keys(PARSED).sort());
    for (const lines of Object.values(COMMAND_HELP)) expect(HELP).toContain(lines);
  });

  it.each(Object.keys(PARSED))("names exactly the flags %s parses", (name) => {
    const parsed = Object.keys(PARSED[name]!);
    const named = flagsIn(COMMAND_HELP[name]!);
    // `script`'s explanation mentions another command's flag (run --model scripted:FILE).
    if (name === "script") named.delete("model");
    expect({ missingFromHelp: parsed.filter((flag) => !named.has(flag) && !SHARED.has(flag)) }).toEqual({
      missingFromHelp: [],
    });
    expect({ notParsed: [...named].filter((flag) => !parsed.includes(flag)) }).toEqual({ notParsed: [] });
  });

  it.each(["ls", "approve", "replay", "serve", "demo", "version"])(
    "prints only %s's usage for `runlog %s --help` and `runlog help %s`",
    async (name) => {
      for (const argv of [
        [name, "--help"],
        ["help", name],
      ]) {
        const result = await cli(...argv);
        expect(result).toMatchObject({ code: 0, stderr: "" });
        expect(result.stdout).toContain(COMMAND_HELP[name]);
        expect(result.stdout).not.toContain("runlog — durable");
        const others = Object.keys(COMMAND_HELP).filter((other) => other !== name);
        for (const other of others) expect(result.stdout).not.toContain(COMMAND_HELP[other]);
      }
    },
  );

  it("prints only config's usage for `runlog config --help` and `runlog config from-stack --help`", async () => {
    for (const argv of [
      ["config", "--help"],
      ["config", "from-stack", "--help"],
    ]) {
      const result = await cli(...argv);
      expect(result).toMatchObject({ code: 0, stderr: "" });
      expect(result.stdout).toContain(COMMAND_HELP.config);
      expect(result.stdout).not.toContain(COMMAND_HELP.run);
    }
  });

  it("prints the whole help for `runlog help` and `runlog --help`", async () => {
    for (const argv of [["help"], ["--help"]])
      expect(await cli(...argv)).toMatchObject({ code: 0, stdout: HELP });
  });
});
