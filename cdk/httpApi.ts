import { type CfnStage, HttpApi, HttpMethod } from "aws-cdk-lib/aws-apigatewayv2";
import { HttpIamAuthorizer, HttpJwtAuthorizer } from "aws-cdk-lib/aws-apigatewayv2-authorizers";
import { HttpLambdaIntegration } from "aws-cdk-lib/aws-apigatewayv2-integrations";
import type { Function as LambdaFunction } from "aws-cdk-lib/aws-lambda";
import { LogGroup, RetentionDays } from "aws-cdk-lib/aws-logs";
import { Construct } from "constructs";
import { DEFAULT_THROTTLE, type RunlogJwtAuth, type RunlogThrottle } from "./edgeProps.ts";

export interface RunlogHttpApiProps {
  /** The function serving lib/http's app. */
  handler: LambdaFunction;
  /** @default RetentionDays.THREE_MONTHS */
  logRetention?: RetentionDays;
  /** A JWT authorizer on every route instead of IAM. @default IAM */
  jwt?: RunlogJwtAuth;
  /** The default stage's throttling. @default DEFAULT_THROTTLE (50 rps, 100 burst) */
  throttle?: RunlogThrottle;
  /** The API's name in the console. @default "Http", as CDK names it from its id */
  name?: string;
}

/**
 * The HTTP API (API Gateway v2): every route goes to one Lambda running the
 * same hono app as `runlog serve`, and every route needs a SigV4-signed
 * request from an IAM principal allowed to call it, or (`jwt`) a token API
 * Gateway checked against the issuer and audience. The stage is throttled.
 */
export class RunlogHttpApi extends Construct {
  readonly api: HttpApi;

  constructor(scope: Construct, id: string, props: RunlogHttpApiProps) {
    super(scope, id);
    const integration = new HttpLambdaIntegration("App", props.handler);
    this.api = new HttpApi(this, "Http", {
      ...(props.name === undefined ? {} : { apiName: props.name }),
      description: "runlog: start, inspect, resume and steer runs",
      defaultAuthorizer: props.jwt
        ? new HttpJwtAuthorizer("Jwt", props.jwt.issuer, { jwtAudience: props.jwt.audience })
        : new HttpIamAuthorizer(),
      createDefaultStage: true,
    });
    // Every route of lib/http/routeSpecs.ts but the public document and the local server's feeds.
    for (const path of ["/runs", "/runs/{proxy+}", "/replays/{proxy+}"]) {
      this.api.addRoutes({ path, methods: [HttpMethod.ANY], integration });
    }
    const logs = new LogGroup(this, "AccessLogs", {
      retention: props.logRetention ?? RetentionDays.THREE_MONTHS,
    });
    const stage = this.api.defaultStage?.node.defaultChild as CfnStage;
    // For every route together: one caller cannot send more than this, nor starve the step functions.
    stage.defaultRouteSettings = {
      throttlingRateLimit: props.throttle?.rateLimit ?? DEFAULT_THROTTLE.rateLimit,
      throttlingBurstLimit: props.throttle?.burstLimit ?? DEFAULT_THROTTLE.burstLimit,
    };
    stage.accessLogSettings = {
      destinationArn: logs.logGroupArn,
      format: JSON.stringify({
        requestId: "$context.requestId",
        caller: props.jwt ? "$context.authorizer.claims.sub" : "$context.identity.userArn",
        method: "$context.httpMethod",
        path: "$context.path",
        status: "$context.status",
        latencyMs: "$context.responseLatency",
      }),
    };
  }
}
