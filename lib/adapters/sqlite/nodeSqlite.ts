/**
 * The slice of Node's built-in `node:sqlite` this adapter uses, typed here
 * because @types/node 20 predates the module. Loaded once, through
 * `loadNodeSqlite`, so its ExperimentalWarning (printed on first load while
 * the module is experimental) never reaches a user's terminal, and no other
 * warning is touched.
 */

import { PermanentError } from "../../core/errors.ts";

/** A value SQLite stores or returns (integers read as numbers). */
export type SqlValue = null | number | bigint | string | Uint8Array;

export interface StatementSync {
  run(...params: SqlValue[]): { changes: number | bigint; lastInsertRowid: number | bigint };
  get(...params: SqlValue[]): Record<string, SqlValue> | undefined;
  all(...params: SqlValue[]): Record<string, SqlValue>[];
}

export interface DatabaseSync {
  exec(sql: string): void;
  prepare(sql: string): StatementSync;
  close(): void;
  readonly isOpen: boolean;
  readonly isTransaction: boolean;
}

interface NodeSqlite {
  DatabaseSync: new (path: string) => DatabaseSync;
}

const isSqliteNotice = (warning: string | Error, rest: unknown[]): boolean => {
  const options = rest[0];
  const type =
    typeof options === "string"
      ? options
      : typeof options === "object" && options !== null
        ? (options as { type?: unknown }).type
        : warning instanceof Error
          ? warning.name
          : undefined;
  const message = typeof warning === "string" ? warning : warning.message;
  return type === "ExperimentalWarning" && /\bSQLite\b/.test(message);
};

let loaded: NodeSqlite | undefined;

/**
 * `node:sqlite`, loaded with its one ExperimentalWarning filtered out. Node
 * emits that warning synchronously while the module loads (once a process), so
 * `process.emitWarning` is wrapped for exactly that call and then restored.
 */
export function loadNodeSqlite(): NodeSqlite {
  if (loaded) return loaded;
  const emitWarning = process.emitWarning;
  process.emitWarning = function quiet(this: unknown, warning: string | Error, ...rest: unknown[]) {
    if (isSqliteNotice(warning, rest)) return;
    return Reflect.apply(emitWarning, process, [warning, ...rest]);
  } as typeof process.emitWarning;
  let module: NodeSqlite | undefined;
  try {
    module = process.getBuiltinModule?.("node:sqlite") as NodeSqlite | undefined;
  } finally {
    process.emitWarning = emitWarning;
  }
  if (!module) {
    throw new PermanentError(
      `the local store needs Node's built-in node:sqlite (Node 22.13 or later); this is Node ${process.versions.node}`,
    );
  }
  loaded = module;
  return module;
}
