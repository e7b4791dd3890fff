import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT, sourceFiles } from "../support/sourceFiles.ts";

/**
 * "Nothing is best-effort" (docs/design/architecture.md, invariant 7): an error is rethrown, turned into a
 * decision, or recorded, never dropped. This finds the silent forms of dropping one in lib/ and
 * functions/: a `catch` whose body is empty or only comments, and a promise's `.catch` whose
 * handler does nothing (`() => {}`, a comment-only body, `() => undefined`, `() => null`).
 * A documented repair may stay: the line before it says `// repair:` and names the test file
 * (test/….test.ts, which must exist) that shows the repair works.
 */

/** Whitespace and comments only: what a body holds that does nothing. */
const NOTHING = String.raw`(?:\s|//[^\n]*(?:\n|$)|/\*[\s\S]*?\*/)*`;
/** `catch {…}` or `catch (e) {…}` (`catch (e: unknown)` too) with nothing in the braces. */
const SILENT_CATCH = new RegExp(
  String.raw`(?<![.\w$])catch\s*(?:\(\s*[\w$]*\s*(?::\s*[\w$]+\s*)?\))?\s*\{${NOTHING}\}`,
  "g",
);
/** `.catch(() => {…})`, `.catch((e) => {…})`, `.catch(e => …)` doing nothing, or returning undefined or null. */
const SILENT_PROMISE_CATCH = new RegExp(
  String.raw`\.catch\(\s*(?:\(\s*(?:[\w$]+\s*(?::\s*[\w$]+\s*)?)?\)|[\w$]+)\s*=>\s*(?:\{${NOTHING}\}|undefined|null|void\s+0)\s*\)`,
  "g",
);
/** `// repair: … test/x/y.test.ts …`: the test that shows the repair. */
const REPAIR = /\/\/\s*repair:.*?(test\/[\w./-]+\.test\.ts)/;

interface SilentCatch {
  line: number;
  text: string;
  /** Why a `// repair:` comment above it does not count, when there is one. */
  repairProblem?: string;
}

/** The silent catches in one source text, with the lines they start on (1-based). */
function silentCatches(source: string, testExists: (path: string) => boolean): SilentCatch[] {
  const lines = source.split("\n");
  const found: SilentCatch[] = [];
  for (const pattern of [SILENT_CATCH, SILENT_PROMISE_CATCH]) {
    for (const match of source.matchAll(pattern)) {
      const line = source.slice(0, match.index).split("\n").length;
      const above = lines[line - 2] ?? "";
      const repair = REPAIR.exec(above);
      if (repair && testExists(repair[1]!)) continue;
      const text = match[0].replace(/\s+/g, " ").slice(0, 80);
      if (repair) found.push({ line, text, repairProblem: `${repair[1]} does not exist` });
      else if (/\/\/\s*repair:/.test(above))
        found.push({ line, text, repairProblem: "the repair comment names no test/….test.ts" });
      else found.push({ line, text });
    }
  }
  return found.sort((a, b) => a.line - b.line);
}

const exists = (path: string) => existsSync(join(ROOT, path));

describe("errors are not swallowed", () => {
  it("no catch in lib/ or functions/ drops an error silently, unless it is a tested repair", () => {
    const findings = [...sourceFiles("lib"), ...sourceFiles("functions")].flatMap((file) =>
      silentCatches(readFileSync(join(ROOT, file), "utf8"), exists).map(
        (found) =>
          `${file}:${found.line}: ${found.text}${found.repairProblem ? ` (${found.repairProblem})` : ""}`,
      ),
    );
    expect(findings, "rethrow, decide, or mark a repair with `// repair: <test file>` above it").toEqual([]);
  });

  describe("the scan itself", () => {
    it.each([
      ["an empty catch", "try {\n  f();\n} catch {}"],
      ["an empty catch with a binding", "try { f(); } catch (error) {\n}"],
      ["a typed binding", "try { f(); } catch (error: unknown) {}"],
      ["a comment-only catch", "try { f(); } catch {\n  // fine, probably\n}"],
      ["a block-comment catch", "try { f(); } catch (e) { /* ignore */ }"],
      ["an empty promise handler", "await p.catch(() => {});"],
      ["a comment-only promise handler", "p.catch(() => {\n  // a missed renewal\n});"],
      ["a handler with a binding", "p.catch((error) => {})"],
      ["a bare-parameter handler", "p.catch(e => {})"],
      ["a handler returning undefined", "const x = await p.catch(() => undefined);"],
      ["a handler returning null", "const x = await p.catch(() => null);"],
      ["a repair comment naming no test", "// repair: keeps going\np.catch(() => {});"],
      ["a repair comment naming a missing test", "// repair: test/nowhere/gone.test.ts\np.catch(() => {});"],
      ["a repair comment two lines above", "// repair: test/known.test.ts\n\np.catch(() => {});"],
    ])("flags %s", (_, source) => {
      expect(silentCatches(source, (path) => path === "test/known.test.ts")).toHaveLength(1);
    });

    it.each([
      [
        "a catch that rethrows",
        "try { f(); } catch (error) {\n  throw new StoreError('x', { cause: error });\n}",
      ],
      ["a catch that decides", "try { return f(); } catch {\n  return 'interrupted';\n}"],
      ["a promise handler that records", "p.catch((error) => this.onError(input, error))"],
      ["a handler that returns a value", "p.catch(() => [])"],
      ["a tested repair", "// repair: test/known.test.ts shows the lease comes back\np.catch(() => {});"],
      ["a tested repair of a catch clause", "  f();\n  // repair: test/known.test.ts\n} catch {}"],
      ["a method named catch", "class P { catch(reason) { return this; } }"],
    ])("lets through %s", (_, source) => {
      expect(silentCatches(source, (path) => path === "test/known.test.ts")).toEqual([]);
    });

    it("says which line", () => {
      const found = silentCatches("const a = 1;\n\nawait p.catch(() => {});\n", () => true);
      expect(found).toEqual([{ line: 3, text: ".catch(() => {})" }]);
    });
  });
});
