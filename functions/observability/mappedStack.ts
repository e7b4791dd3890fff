import { readFileSync } from "node:fs";
import { SourceMap } from "node:module";
import { fileURLToPath } from "node:url";

/**
 * A stack as the sources wrote it, mapped when an error is logged rather than on every cold start.
 *
 * Each function's bundle ships a linked source map (index.mjs.map). `--enable-source-maps` would
 * have Node read and decode that map (about 1.8 MB for CallModel) while the bundle loads, which
 * cost ~11% of the handler's import CPU (measured with farm-bench, 10 pairs). Instead the map of a
 * file is read the first time a stack that runs through it is logged, and kept for the container's
 * next errors. A process that enabled source maps itself (NODE_OPTIONS given in the function's
 * `environment`) already gets mapped stacks from Node, and they are left as they are.
 */
const maps = new Map<string, SourceMap | null>();

function mapOf(file: string): SourceMap | null {
  let map = maps.get(file);
  if (map === undefined) {
    try {
      map = new SourceMap(JSON.parse(readFileSync(`${file}.map`, "utf8")));
    } catch {
      // No map beside the file (code not bundled, a map not shipped): its frames stay as they are.
      map = null;
    }
    maps.set(file, map);
  }
  return map;
}

/** `    at fn (file:///var/task/index.mjs:1:2345)` or `    at /var/task/index.mjs:1:2345`. */
const FRAME = /^(\s*at (?:.*? \()?)((?:file:\/\/)?\/[^():]+):(\d+):(\d+)(\)?)$/;

/** A source's path as the map names it, relative to where it was built: from its package on, or its own path. */
function shown(source: string): string {
  const path = source.replace(/^(?:\.\.\/)+/, "");
  const inPackage = path.lastIndexOf("node_modules/");
  return inPackage >= 0 ? path.slice(inPackage) : path;
}

export function mappedStack(stack: string): string {
  if (process.sourceMapsEnabled) return stack;
  return stack
    .split("\n")
    .map((line) => {
      const frame = FRAME.exec(line);
      if (!frame) return line;
      const [, head, location, row, column, tail] = frame as unknown as [
        string,
        string,
        string,
        string,
        string,
        string,
      ];
      const file = location.startsWith("file://") ? fileURLToPath(location) : location;
      const map = mapOf(file);
      if (!map) return line;
      const entry = map.findEntry(Number(row) - 1, Number(column) - 1);
      if (!("originalSource" in entry)) return line;
      return `${head}${shown(entry.originalSource)}:${entry.originalLine + 1}:${entry.originalColumn + 1}${tail}`;
    })
    .join("\n");
}
