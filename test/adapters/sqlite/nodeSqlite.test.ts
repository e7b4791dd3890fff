import type * as NodeSqlite from "node:sqlite";
import { describe, expect, it } from "vitest";
import { loadNodeSqlite } from "../../../lib/adapters/sqlite/nodeSqlite.ts";

describe("loadNodeSqlite", () => {
  it("hands back Node's own module, typed by @types/node (not a hand-written slice)", () => {
    // Typed as the whole module: a hand-typed slice of it does not compile here (npm run typecheck).
    const sqlite: typeof NodeSqlite = loadNodeSqlite();
    expect(sqlite).toBe(process.getBuiltinModule("node:sqlite"));
    const db = new sqlite.DatabaseSync(":memory:");
    try {
      const statement = db.prepare("SELECT 1 AS one, 'a' AS letter");
      // columns() and setReadBigInts() are in Node's types and were never in the slice.
      expect(statement.columns().map((column) => column.name)).toEqual(["one", "letter"]);
      statement.setReadBigInts(true);
      expect(statement.get()).toEqual({ one: 1n, letter: "a" });
    } finally {
      db.close();
    }
  });
});
