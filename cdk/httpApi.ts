import { CfnOutput } from "aws-cdk-lib";
import { type CfnStage, HttpApi, HttpMethod } from "aws-cdk-lib/aws-apigatewayv2";
import { HttpIamAuthorizer } from "aws-cdk-lib/aws-apigatewayv2-authorizers";
import { HttpLambdaIntegration } from "aws-cdk-lib/aws-apigatewayv2-integrations";
import type { NodejsFunction } from "aws-cdk-lib/aws-lambda-nodejs";
import { LogGroup, RetentionDays } from "aws-cdk-lib/aws-logs";
import { Construct } from "constructs";

export interface RunlogHttpApiProps {
  /** The function serving lib/http's app. */
  handler: NodejsFunction;
  /** @default RetentionDays.THREE_MONTHS */
  logRetention?: RetentionDays;
}

/**
 * The HTTP API (API Gateway v2): every route goes to one Lambda running the
 * same hono app as `runlog serve`, and every route needs a SigV4-signed
 * request from an IAM principal allowed to call it.
 */
export class RunlogHttpApi extends Construct {
  readonly api: HttpApi;

  constructor(scope: Construct, id: string, props: RunlogHttpApiProps) {
    super(scope, id);
    const integration = new HttpLambdaIntegration("App", props.handler);
    this.api = new HttpApi(this, "Http", {
      description: "runlog: start, inspect, resume and steer runs",
      defaultAuthorizer: new HttpIamAuthorizer(),
      createDefaultStage: true,
    });
    for (const path of ["/runs", "/runs/{proxy+}"]) {
      this.api.addRoutes({ path, methods: [HttpMethod.ANY], integration });
    }
    const logs = new LogGroup(this, "AccessLogs", {
      retention: props.logRetention ?? RetentionDays.THREE_MONTHS,
    });
    const stage = this.api.defaultStage?.node.defaultChild as CfnStage;
    stage.accessLogSettings = {
      destinationArn: logs.logGroupArn,
      format: JSON.stringify({
        requestId: "$context.requestId",
        caller: "$context.identity.userArn",
        method: "$context.httpMethod",
        path: "$context.path",
        status: "$context.status",
        latencyMs: "$context.responseLatency",
      }),
    };
    new CfnOutput(this, "Url", {
      value: this.api.apiEndpoint,
      description: "the runlog HTTP API (IAM auth)",
    });
  }
}
