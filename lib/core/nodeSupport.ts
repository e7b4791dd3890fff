/**
 * The oldest Node.js runlog runs on: 22.13 is where `node:sqlite` needs no flag,
 * and Lambda runs nodejs22.x. package.json's `engines` names the same (a test checks).
 */
export const REQUIRED_NODE = "22.13.0";

/**
 * Why runlog cannot run on Node.js `found` (a `process.versions.node`), in one line,
 * or undefined when it can. Pure, and written so that any Node can load it.
 */
export function unsupportedNode(found: string): string | undefined {
  if (!olderThan(found, REQUIRED_NODE)) return undefined;
  const [major, minor] = REQUIRED_NODE.split(".");
  return (
    `runlog needs Node.js ${major}.${minor} or later, but this is Node.js ${found}: ` +
    `install Node.js ${major} (https://nodejs.org/en/download, or \`nvm install ${major}\`) and run again.`
  );
}

function olderThan(found: string, wanted: string): boolean {
  const a = found.replace(/^v/, "").split(".").map(Number);
  const b = wanted.split(".").map(Number);
  for (let i = 0; i < 3; i++) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    if (Number.isNaN(x)) return true;
    if (x !== y) return x < y;
  }
  return false;
}
