import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT, sourceFiles } from "../support/sourceFiles.ts";

/**
 * An AsyncLocalStorage (on Node 22, without --experimental-async-context-frame) or an async hook
 * turns on V8's promise hooks for the whole process: every promise of every run then pays an init,
 * a before, an after and a resolve callback, about a tenth of a local turn's CPU (BENCHMARKS.md).
 * What a step needs from the execution around it is handed to it (lib/runtime/local/orchestrator.ts).
 */
const HOOKS = /\b(AsyncLocalStorage|createHook|promiseHooks|AsyncResource)\b/;

/** A line of a comment, which may name one. */
const COMMENT = /^\s*(\/\/|\/\*|\*)/;

/** `file:line` of every line of code in `source` that uses one. */
function hookUses(path: string, source: string): string[] {
  return source
    .split("\n")
    .flatMap((text, i) => (HOOKS.test(text) && !COMMENT.test(text) ? [`${path}:${i + 1}`] : []));
}

describe("promise hooks", () => {
  it("finds an AsyncLocalStorage, an async hook and V8's promise hooks", () => {
    const source = [
      'import { AsyncLocalStorage } from "node:async_hooks";',
      "const ok = 1;",
      "createHook({ init() {} }).enable();",
      "v8.promiseHooks.onInit(() => {});",
      " * an AsyncLocalStorage would turn promise hooks on",
    ].join("\n");
    expect(hookUses("x.ts", source)).toEqual(["x.ts:1", "x.ts:3", "x.ts:4"]);
  });

  it("are never turned on by lib/ or functions/", () => {
    const found = ["lib", "functions"]
      .flatMap((dir) => sourceFiles(dir))
      .flatMap((path) => hookUses(path, readFileSync(join(ROOT, path), "utf8")));
    expect(found).toEqual([]);
  });
});
