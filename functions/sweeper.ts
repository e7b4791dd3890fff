import { z } from "zod";
import { sweep } from "../lib/steps/sweep.ts";
import { AWS_SWEEP } from "./deps.ts";
import { controlHandler } from "./handler.ts";

/** The scheduled sweep: resumes runs whose executor died. The event itself carries nothing it needs. */
export const handler = controlHandler(z.unknown(), async (deps) => {
  const report = await sweep(deps, AWS_SWEEP);
  // One structured line per sweep, so what it resumed, skipped and failed is in the logs.
  console.log(JSON.stringify({ message: "runlog sweep", ...report }));
  return report;
});
