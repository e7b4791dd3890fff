import * as z from "zod";
import { type ToolSpec, toolSpec } from "./toolSpecs.ts";
import { transferToolName } from "./transfers.ts";

// The tool the model calls to transfer (transfers.ts has the names and the words): its arguments'
// schema and the spec the model sees.

/** A transfer call's arguments: why, for the log and the next agent. */
export const TransferArgumentsSchema = z.object({
  reason: z.string().optional().describe("Why the conversation is handed over, for the next agent."),
});

/** Who a transfer may go to, as the model is told: the target's name and what it is for. */
export interface TransferTarget {
  name: string;
  description?: string | undefined;
}

/** The tool the model sees for a transfer to `target`, described by the target agent's description. */
export function transferSpec(target: TransferTarget): ToolSpec {
  const about = target.description?.trim() ? ` ${target.description.trim()}` : "";
  return toolSpec({
    name: transferToolName(target.name),
    description: `Hand the conversation over to the agent "${target.name}".${about}`,
    parameters: TransferArgumentsSchema,
  });
}
