/**
 * Node's built-in `node:sqlite`, with its own types (@types/node 22 ships
 * them), loaded once through `loadNodeSqlite` so its ExperimentalWarning
 * (printed on first load while the module is experimental) never reaches a
 * user's terminal, and no other warning is touched. Type-only imports of
 * `node:sqlite` load nothing: the module itself is loaded only by
 * `loadNodeSqlite`, so a process that never opens a store never loads it.
 */

import type * as NodeSqlite from "node:sqlite";
import { PermanentError } from "../../core/errors.ts";

export type { DatabaseSync, SQLInputValue, SQLOutputValue, StatementSync } from "node:sqlite";

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

let loaded: typeof NodeSqlite | undefined;

/**
 * `node:sqlite`, loaded with its one ExperimentalWarning filtered out. Node
 * emits that warning synchronously while the module loads (once a process), so
 * `process.emitWarning` is wrapped for exactly that call and then restored.
 */
export function loadNodeSqlite(): typeof NodeSqlite {
  if (loaded) return loaded;
  const emitWarning = process.emitWarning;
  process.emitWarning = function quiet(this: unknown, warning: string | Error, ...rest: unknown[]) {
    if (isSqliteNotice(warning, rest)) return;
    return Reflect.apply(emitWarning, process, [warning, ...rest]);
  } as typeof process.emitWarning;
  let module: typeof NodeSqlite | undefined;
  try {
    // Optional call and undefined: on a Node older than 22.3 neither exists, and the error below says so.
    module = process.getBuiltinModule?.("node:sqlite") as typeof NodeSqlite | undefined;
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
