import { Stack, Token, Validations } from "aws-cdk-lib";
import { type IGrantable, PolicyStatement } from "aws-cdk-lib/aws-iam";
import type { IFunction } from "aws-cdk-lib/aws-lambda";
import { RunlogPropsError } from "./propsError.ts";

/** The Bedrock models a deployment's runs may call (`bedrock:<id>` specs). */
export interface RunlogBedrockProps {
  /**
   * Each a foundation model id (`amazon.nova-lite-v1:0`), a cross-region inference profile id
   * (`us.amazon.nova-lite-v1:0`: the profile and the foundation model it routes to, in every
   * Region it may route to), or the ARN of either. Only CallModel may invoke them.
   */
  models: string[];
}

/** ConverseStream's action: the only one a `bedrock:` model calls. */
export const BEDROCK_ACTIONS = ["bedrock:InvokeModelWithResponseStream"];

/** The geographic prefixes of Bedrock's system-defined (cross-region) inference profile ids. */
const PROFILE_GEOS = ["us", "us-gov", "eu", "apac", "ca", "jp", "au", "global"];
const PROFILE_ID = new RegExp(`^(${PROFILE_GEOS.join("|")})\\.([a-z0-9-]+\\..+)$`);
/** A foundation model id: `<provider>.<model>`, letters, digits, `.`, `-`, `:` and `_`. */
const MODEL_ID = /^[a-z0-9-]+\.[A-Za-z0-9._:-]+$/;
const MODEL_ARN = /^arn:aws[a-z-]*:bedrock:[a-z0-9-]+::foundation-model\/([A-Za-z0-9._:-]+)$/;
const PROFILE_ARN = /^arn:aws[a-z-]*:bedrock:[a-z0-9-]+:\d{12}:inference-profile\/([A-Za-z0-9._:-]+)$/;

/** Check the `bedrock` prop: RunlogPropsError naming it for anything but a list of model ids or ARNs, without wildcards. */
export function validateBedrockProps(bedrock: RunlogBedrockProps | undefined): void {
  if (bedrock === undefined) return;
  if (typeof bedrock !== "object" || bedrock === null || !Array.isArray(bedrock.models)) {
    throw new RunlogPropsError("bedrock", `must be { models: [model ids] }, got ${JSON.stringify(bedrock)}`);
  }
  if (bedrock.models.length === 0) {
    throw new RunlogPropsError("bedrock.models", "must name at least one model (leave bedrock out for none)");
  }
  for (const model of bedrock.models) {
    if (typeof model !== "string" || Token.isUnresolved(model) || !isModel(model)) {
      throw new RunlogPropsError(
        "bedrock.models",
        `must each be a Bedrock model id (amazon.nova-lite-v1:0), a cross-region inference profile id (us.amazon.nova-lite-v1:0) or the ARN of either, written out with no wildcard; got ${JSON.stringify(model)}`,
      );
    }
  }
}

function isModel(model: string): boolean {
  if (model.includes("*") || model.includes("?")) return false;
  return MODEL_ARN.test(model) || PROFILE_ARN.test(model) || MODEL_ID.test(model);
}

/**
 * The resources each model names for IAM: a foundation model's ARN in the stack's Region; for an
 * inference profile, its ARN and the foundation model it routes to in any Region (a cross-region
 * profile sends requests to the Regions of its geography, and IAM checks the model there).
 */
export function bedrockResources(stack: Stack, models: readonly string[]): string[] {
  const { partition, region, account } = stack;
  const foundation = (id: string, where: string = region) =>
    `arn:${partition}:bedrock:${where}::foundation-model/${id}`;
  const resources = models.flatMap((model) => {
    const profileArn = PROFILE_ARN.exec(model);
    if (profileArn) return [model, ...routedModel(profileArn[1]!, foundation)];
    if (MODEL_ARN.test(model)) return [model];
    const profile = PROFILE_ID.exec(model);
    if (profile) {
      return [
        `arn:${partition}:bedrock:${region}:${account}:inference-profile/${model}`,
        foundation(profile[2]!, "*"),
      ];
    }
    return [foundation(model)];
  });
  return [...new Set(resources)];
}

function routedModel(profileId: string, foundation: (id: string, where?: string) => string): string[] {
  const profile = PROFILE_ID.exec(profileId);
  return profile ? [foundation(profile[2]!, "*")] : [];
}

/** Let CallModel (and only it: `grantee`) stream from exactly the models named. */
export function grantBedrock(callModel: IFunction & IGrantable, bedrock: RunlogBedrockProps): void {
  const resources = bedrockResources(Stack.of(callModel), bedrock.models);
  callModel.grantPrincipal.addToPrincipalPolicy(new PolicyStatement({ actions: BEDROCK_ACTIONS, resources }));
  // A cross-region profile's model is named in every Region (`*`), as AWS documents for them.
  for (const resource of resources.filter((r) => r.includes(":bedrock:*::"))) {
    Validations.of(callModel.role!).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${nagResource(resource)}]`,
      reason:
        "InvokeModelWithResponseStream on one foundation model in the Regions a cross-region inference profile named in bedrock.models routes to",
    });
  }
}

/** A resource as cdk-nag writes it in a finding's id: the partition as the token it is. */
const nagResource = (resource: string) => resource.replace(/^arn:[^:]+:/, "arn:<AWS::Partition>:");
