import { stateMachineArnParts } from "../../adapters/stepfunctions/stateMachineArn.ts";

/**
 * The region of a deployment named by its state machine's ARN (its table shares it);
 * InvalidInputError for what is not such an ARN. Loads no AWS SDK, so `runlog serve` can
 * check its options before openDeployment loads one.
 */
export function deploymentRegion(stateMachineArn: string): string {
  return stateMachineArnParts(stateMachineArn)[3]!;
}
