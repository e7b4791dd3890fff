import { existsSync, realpathSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { RunlogPropsError } from "./propsError.ts";
import { FUNCTIONS_DIR } from "./runlogFunction.ts";

/** The lockfiles of the package managers runlog knows, any of which marks a project's root. */
export const LOCKFILES = ["package-lock.json", "pnpm-lock.yaml", "yarn.lock", "bun.lock", "bun.lockb"];

function lockfileAtOrAbove(start: string): string | undefined {
  for (let dir = start; ; dir = dirname(dir)) {
    const found = LOCKFILES.map((name) => join(dir, name)).find((path) => existsSync(path));
    if (found) return found;
    if (dirname(dir) === dir) return undefined;
  }
}

const isUnder = (path: string, root: string) => {
  const rel = relative(root, path);
  return rel === "" || (!isAbsolute(rel) && rel !== ".." && !rel.startsWith(`..${sep}`));
};

/** The agents module as an absolute real path, or a RunlogPropsError saying why not. */
export function agentsModulePath(module: string | undefined): string {
  if (typeof module !== "string" || module === "") {
    throw new RunlogPropsError("agentsModule", "is required: the path of the module exporting `agents`");
  }
  const path = resolve(module);
  if (!existsSync(path)) throw new RunlogPropsError("agentsModule", `${path} does not exist`);
  if (!statSync(path).isFile()) throw new RunlogPropsError("agentsModule", `${path} is not a file`);
  return realpathSync(path);
}

/**
 * Where esbuild runs: the user's project, whose lockfile pins what is bundled and
 * under which an installed runlog's functions lie. A runlog linked from elsewhere
 * (npm link, a file: dependency, this repository's own tests) is bundled from its
 * own checkout, so the functions are bundled with the dependencies they were built against.
 */
export function bundlingRoot(agentsModule: string, projectRoot: string | undefined): string {
  let root: string;
  let lockfile: string | undefined;
  if (projectRoot === undefined) {
    lockfile = lockfileAtOrAbove(dirname(agentsModule));
    if (!lockfile) {
      throw new RunlogPropsError(
        "projectRoot",
        `was not given and no directory at or above ${dirname(agentsModule)} holds a lockfile (${LOCKFILES.join(", ")})`,
      );
    }
    root = dirname(lockfile);
  } else {
    const given = resolve(projectRoot);
    if (!existsSync(given) || !statSync(given).isDirectory()) {
      throw new RunlogPropsError("projectRoot", `${given} is not a directory`);
    }
    root = realpathSync(given);
    lockfile = lockfileAtOrAbove(root);
    if (!lockfile) {
      throw new RunlogPropsError(
        "projectRoot",
        `${root}: no lockfile (${LOCKFILES.join(", ")}) in it or above it`,
      );
    }
  }
  const functions = realpathSync(FUNCTIONS_DIR);
  if (isUnder(functions, root)) return root;
  const own = lockfileAtOrAbove(functions);
  if (!own) {
    throw new RunlogPropsError(
      "projectRoot",
      `${root} does not hold runlog's functions (${functions}): install runlog into the project, or name a projectRoot that holds both`,
    );
  }
  return dirname(own);
}
