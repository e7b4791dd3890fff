import { InvalidInputError } from "../../core/errors.ts";

// Apart from executionName.ts (which hashes with node:crypto), so that what only reads an ARN
// (deploymentRegion, for the CLI's commands) loads no crypto.

/** The seven parts of a state machine's ARN; InvalidInputError for anything else. */
export function stateMachineArnParts(stateMachineArn: string): string[] {
  const parts = stateMachineArn.split(":");
  if (
    parts.length !== 7 ||
    parts[0] !== "arn" ||
    parts[2] !== "states" ||
    parts[5] !== "stateMachine" ||
    parts.some((part) => part === "")
  ) {
    throw new InvalidInputError(
      `state machine ARN ${JSON.stringify(stateMachineArn)}: expected arn:<partition>:states:<region>:<account>:stateMachine:<name>`,
    );
  }
  return parts;
}
