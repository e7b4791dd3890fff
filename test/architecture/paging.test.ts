import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT, sourceFiles } from "../support/sourceFiles.ts";

/**
 * A DynamoDB read that walks every page is the SDK's paginator's job (paginateQuery, paginateScan;
 * lib/adapters/dynamodb/queryPages.ts for the store): a hand-written `ExclusiveStartKey` loop is
 * one more copy of it. A loop that does more than paging (asks each page for a different Limit,
 * stops on a budget, keeps the key for a caller's cursor) may stay, when the line before its
 * `ExclusiveStartKey` says `// paged by hand:` and why.
 */

/** `file:line` of every `ExclusiveStartKey` written by hand without a `// paged by hand:` reason above it. */
function unexplainedPaging(path: string, source: string): string[] {
  const lines = source.split("\n");
  return lines.flatMap((text, i) =>
    /\bExclusiveStartKey\b/.test(text) && !/\/\/\s*paged by hand:\s*\S/.test(lines[i - 1] ?? "")
      ? [`${path}:${i + 1}`]
      : [],
  );
}

describe("paging DynamoDB reads", () => {
  it("finds a hand-written page loop, and accepts one that says why it is by hand", () => {
    const loop =
      "do {\n  const page = await send({ ...(key ? { ExclusiveStartKey: key } : {}) });\n} while (key);";
    expect(unexplainedPaging("x.ts", loop)).toEqual(["x.ts:2"]);
    const explained = loop.replace("  const page", "  // paged by hand: stops early\n  const page");
    expect(unexplainedPaging("x.ts", explained.replace("{ ...(", "{\n...("))).toEqual(["x.ts:4"]);
    expect(unexplainedPaging("x.ts", "// paged by hand: a cursor\nExclusiveStartKey: key")).toEqual([]);
    expect(unexplainedPaging("x.ts", "// paged by hand:\nExclusiveStartKey: key")).toEqual(["x.ts:2"]);
  });

  it("walks every page of lib/, functions/ and test/ with the SDK's paginator", () => {
    const found = ["lib", "functions", "test"]
      .flatMap((dir) => sourceFiles(dir))
      .filter((path) => !path.endsWith("paging.test.ts"))
      .flatMap((path) => unexplainedPaging(path, readFileSync(join(ROOT, path), "utf8")));
    expect(found).toEqual([]);
  });
});
