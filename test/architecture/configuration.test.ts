import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT, sourceFiles } from "../support/sourceFiles.ts";

/** Every source file (lib/, functions/, cdk/, bin/), as a path from the repository's root. */
const sources = (dir: string): string[] => sourceFiles(dir, (path) => /\.(ts|js|mjs)$/.test(path));
const SOURCES = ["lib", "functions", "cdk", "bin"].flatMap(sources);
const text = (file: string) => readFileSync(join(ROOT, file), "utf8");

/** The variables' names, and the CLI's usage text, which tells a user the variables. */
const NAMING_RUNLOG_VARIABLES = ["lib/runtime/config.ts", "lib/cli/help.ts"];

/**
 * The composition roots that hand the environment to readConfig: openLocal's default is
 * readConfig's own; the CLI's main and the Lambda handlers' deps pass theirs.
 */
// functions/publishLifecycle.ts is the publisher's own root: it builds two clients, and no agents.
// lib/runtime/aws/xray.ts reads Lambda's own trace header, which changes every invocation.
const READING_PROCESS_ENV = [
  "lib/runtime/readConfig.ts",
  "lib/cli/main.ts",
  "functions/deps.ts",
  "functions/publishLifecycle.ts",
  "lib/runtime/aws/xray.ts",
];

describe("configuration is read once, in one schema", () => {
  it("finds the source files it checks", () => {
    expect(SOURCES.length).toBeGreaterThan(100);
    for (const file of [...NAMING_RUNLOG_VARIABLES, ...READING_PROCESS_ENV]) expect(SOURCES).toContain(file);
  });

  it("names RUNLOG_ variables only in the schema and the CLI's usage text", () => {
    const naming = SOURCES.filter((file) => /\bRUNLOG_[A-Z]/.test(text(file)));
    expect(naming.sort()).toEqual([...NAMING_RUNLOG_VARIABLES].sort());
  });

  it("reads process.env only in the composition roots", () => {
    const reading = SOURCES.filter((file) => /\bprocess\.env\b/.test(text(file)));
    expect(reading.sort()).toEqual([...READING_PROCESS_ENV].sort());
  });

  it("leaves the handlers' variables to the schema too: cdk/ and functions/ import their names", () => {
    const handlerNames =
      /["'`](TABLE_NAME|STATE_MACHINE_ARN|MODEL_KEY_SECRET_ARN)["'`]|\b(TABLE_NAME|STATE_MACHINE_ARN|MODEL_KEY_SECRET_ARN):/;
    const naming = SOURCES.filter((file) => handlerNames.test(text(file)));
    expect(naming).toEqual(["lib/runtime/config.ts"]);
  });
});
