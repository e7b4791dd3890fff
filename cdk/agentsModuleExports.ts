import type { Message } from "esbuild";
import { loadEsbuild } from "./lambdaBundle.ts";
import { RunlogPropsError } from "./propsError.ts";

const firstError = (errors: readonly Message[]) => {
  const error = errors[0];
  if (!error) return "esbuild failed";
  const where = error.location ? `${error.location.file}:${error.location.line}: ` : "";
  return `${where}${error.text}`;
};

/**
 * Refuse an agents module that does not export `agents`, read by the project's esbuild without
 * running it: the module and the project files it imports, packages left out (fast). What cannot
 * be read this way is let through: a CommonJS module (bundled, its `exports.agents` is imported
 * by name) and a module re-exporting all of a package (`export * from "pkg"`).
 */
export function checkAgentsModuleExports(agentsModule: string, projectRoot: string): void {
  const esbuild = loadEsbuild(projectRoot);
  let result: import("esbuild").BuildResult<{ metafile: true; write: false }>;
  try {
    result = esbuild.buildSync({
      entryPoints: [agentsModule],
      absWorkingDir: projectRoot,
      bundle: true,
      packages: "external",
      format: "esm",
      platform: "node",
      target: "node22",
      write: false,
      metafile: true,
      outdir: "out",
      logLevel: "silent",
    });
  } catch (error) {
    const errors = (error as { errors?: Message[] }).errors ?? [];
    throw new RunlogPropsError("agentsModule", `${agentsModule} does not build: ${firstError(errors)}`, {
      cause: error,
    });
  }
  const output = Object.values(result.metafile.outputs).find((out) => out.entryPoint !== undefined);
  if (!output?.entryPoint || result.metafile.inputs[output.entryPoint]?.format === "cjs") return;
  if (output.exports.includes("agents")) return;
  const text = result.outputFiles.find((file) => file.path.endsWith(".js"))?.text ?? "";
  if (/\bexport\s*\*\s*from\b/.test(text)) return;
  const found = output.exports.length === 0 ? "exports nothing" : `exports only ${output.exports.join(", ")}`;
  throw new RunlogPropsError(
    "agentsModule",
    `${agentsModule} ${found}: it must have the named export \`agents\` (export const agents: Record<string, AgentFactory> = { ... })${output.exports.includes("default") ? "; a default export is not read" : ""}`,
  );
}
