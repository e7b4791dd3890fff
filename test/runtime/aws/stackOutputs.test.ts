import {
  CloudFormationClient,
  CloudFormationServiceException,
  DescribeStacksCommand,
} from "@aws-sdk/client-cloudformation";
import { mockClient } from "aws-sdk-client-mock";
import { afterEach, describe, expect, it } from "vitest";
import { InvalidInputError, NotFoundError } from "../../../lib/core/errors.ts";
import { describeStackOutputs } from "../../../lib/runtime/aws/stackOutputs.ts";
import { deploymentOf } from "../../../lib/runtime/deploymentOutputs.ts";

/** `runlog config from-stack` without a file: CloudFormation's answers, which no local server gives. */
const cloudFormation = mockClient(CloudFormationClient);
afterEach(() => cloudFormation.reset());

describe("describeStackOutputs", () => {
  it("reads the stack's outputs by key, as the CLI's configuration takes them", async () => {
    cloudFormation.on(DescribeStacksCommand, { StackName: "Runlog" }).resolves({
      Stacks: [
        {
          StackName: "Runlog",
          CreationTime: new Date(),
          StackStatus: "UPDATE_COMPLETE",
          Outputs: [
            { OutputKey: "TableName", OutputValue: "Runlog-RunsTable-1" },
            {
              OutputKey: "StateMachineArn",
              OutputValue: "arn:aws:states:eu-west-1:123456789012:stateMachine:Run",
            },
            { OutputKey: "Region", OutputValue: "eu-west-1" },
          ],
        },
      ],
    });
    const outputs = await describeStackOutputs("Runlog", "eu-west-1");
    expect(deploymentOf(outputs)).toEqual({
      tableName: "Runlog-RunsTable-1",
      stateMachineArn: "arn:aws:states:eu-west-1:123456789012:stateMachine:Run",
      region: "eu-west-1",
    });
  });

  it("says a stack that is not there is not found", async () => {
    cloudFormation.on(DescribeStacksCommand).rejects(
      new CloudFormationServiceException({
        name: "ValidationError",
        $fault: "client",
        $metadata: {},
        message: "Stack with id Nope does not exist",
      }),
    );
    await expect(describeStackOutputs("Nope", "eu-west-1")).rejects.toBeInstanceOf(NotFoundError);
  });

  it("says how to give credentials when there are none", async () => {
    const missing = Object.assign(new Error("Could not load credentials from any providers"), {
      name: "CredentialsProviderError",
    });
    cloudFormation.on(DescribeStacksCommand).rejects(missing);
    const error = await describeStackOutputs("Runlog", "eu-west-1").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as Error).message).toContain("--outputs-file");
  });
});
