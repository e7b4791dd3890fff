import { CloudFormationClient, DescribeStacksCommand } from "@aws-sdk/client-cloudformation";
import { awsClientConfig } from "../../adapters/aws/clientConfig.ts";
import { isMissingCredentials } from "../../adapters/aws/errors.ts";
import { errorMessage, InvalidInputError, NotFoundError } from "../../core/errors.ts";
import { AWS_REQUEST } from "../../workflow/timeouts.ts";
import type { StackOutputs } from "../deploymentOutputs.ts";

/**
 * A deployed stack's outputs, read with the caller's own AWS credentials (the SDK's default
 * chain; `region` else the SDK's). Loaded only by `runlog config from-stack` without a file.
 */
export async function describeStackOutputs(stackName: string, region?: string): Promise<StackOutputs> {
  const client = new CloudFormationClient({
    ...awsClientConfig(AWS_REQUEST.outsideAwsRequestMs),
    ...(region === undefined ? {} : { region }),
  });
  try {
    const { Stacks } = await client.send(new DescribeStacksCommand({ StackName: stackName }));
    const stack = Stacks?.[0];
    if (!stack) throw new NotFoundError(`stack ${stackName} not found`);
    const outputs: Record<string, string> = {};
    for (const { OutputKey, OutputValue } of stack.Outputs ?? []) {
      if (OutputKey !== undefined && OutputValue !== undefined) outputs[OutputKey] = OutputValue;
    }
    return outputs;
  } catch (error) {
    if (error instanceof NotFoundError) throw error;
    if (isMissingCredentials(error)) {
      throw new InvalidInputError(
        "no AWS credentials found: set AWS_PROFILE, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or pass --outputs-file",
        { cause: error },
      );
    }
    // CloudFormation answers a stack it does not have with a ValidationError saying so.
    if (
      (error as { name?: string }).name === "ValidationError" &&
      /does not exist/.test(errorMessage(error))
    ) {
      throw new NotFoundError(`stack ${stackName} not found${region ? ` in ${region}` : ""}`, {
        cause: error,
      });
    }
    throw error;
  } finally {
    client.destroy();
  }
}
