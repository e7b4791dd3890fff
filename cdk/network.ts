import {
  GatewayVpcEndpoint,
  GatewayVpcEndpointAwsService,
  InterfaceVpcEndpoint,
  InterfaceVpcEndpointAwsService,
  type ISecurityGroup,
  type IVpc,
  Port,
  SecurityGroup,
  type SelectedSubnets,
  type SubnetSelection,
  SubnetType,
} from "aws-cdk-lib/aws-ec2";
import { Construct } from "constructs";
import { RunlogPropsError } from "./propsError.ts";

/** Where runlog's functions run: in your VPC, on its subnets, behind its security groups. */
export interface RunlogNetworkProps {
  /** The VPC every function runlog makes runs in (its role then may manage the function's network interfaces). @default none: Lambda's own network, with internet access */
  vpc?: IVpc;
  /** The subnets of `vpc` the functions run in; not public ones (a function there has no public address). @default the VPC's private subnets with egress, else its isolated ones */
  vpcSubnets?: SubnetSelection;
  /** The security groups of every function, with `vpc`. @default one security group the construct makes, all outbound traffic allowed, none inbound */
  securityGroups?: ISecurityGroup[];
  /**
   * The VPC endpoints of the AWS services the functions call (VPC_ENDPOINT_SERVICES), with `vpc`:
   * "create" makes them in the functions' subnets (the interface ones with private DNS, open on 443
   * to the functions' security groups); "bring-your-own" makes none, for a VPC that has them or a
   * NAT (docs/guides/networking.md lists them). @default "bring-your-own"
   */
  vpcEndpoints?: "create" | "bring-your-own";
}

/** How a function reaches one AWS service from inside a VPC: the endpoint's kind and service name. */
export interface EndpointService {
  kind: "gateway" | "interface";
  /** The name after `com.amazonaws.<region>.` */
  service: string;
}

/**
 * Each AWS SDK client package runlog's code may call, and the endpoint that serves it from a
 * subnet without internet access. A client without a row here cannot be reached in such a VPC:
 * test/cdk/network.test.ts finds every client the functions bundle and fails on one missing.
 */
export const ENDPOINT_OF_CLIENT: Readonly<Record<string, EndpointService>> = {
  "@aws-sdk/client-dynamodb": { kind: "gateway", service: "dynamodb" },
  "@aws-sdk/client-sfn": { kind: "interface", service: "states" },
  "@aws-sdk/client-lambda": { kind: "interface", service: "lambda" },
  "@aws-sdk/client-sqs": { kind: "interface", service: "sqs" },
  "@aws-sdk/client-secrets-manager": { kind: "interface", service: "secretsmanager" },
  "@aws-sdk/client-eventbridge": { kind: "interface", service: "events" },
  "@aws-sdk/client-bedrock-runtime": { kind: "interface", service: "bedrock-runtime" },
  "@aws-sdk/client-scheduler": { kind: "interface", service: "scheduler" },
  "@aws-sdk/client-cloudwatch": { kind: "interface", service: "monitoring" },
  "@aws-sdk/client-cloudwatch-logs": { kind: "interface", service: "logs" },
  "@aws-sdk/client-xray": { kind: "interface", service: "xray" },
  "@aws-sdk/client-kms": { kind: "interface", service: "kms" },
  "@aws-sdk/client-sts": { kind: "interface", service: "sts" },
};

/**
 * The SDK clients runlog's functions bundle (functions/ and what they import of lib/), checked
 * against the bundles by test/cdk/network.test.ts. Logs, traces and metrics (EMF lines in the
 * logs) leave through Lambda itself, not the function's network: they need no endpoint.
 */
export const FUNCTION_SDK_CLIENTS = [
  "@aws-sdk/client-bedrock-runtime",
  "@aws-sdk/client-dynamodb",
  "@aws-sdk/client-eventbridge",
  "@aws-sdk/client-lambda",
  "@aws-sdk/client-secrets-manager",
  "@aws-sdk/client-sfn",
  "@aws-sdk/client-sqs",
] as const;

/** The endpoints `vpcEndpoints: "create"` makes, in FUNCTION_SDK_CLIENTS's order. */
export const VPC_ENDPOINT_SERVICES: readonly EndpointService[] = FUNCTION_SDK_CLIENTS.map(
  (client) => ENDPOINT_OF_CLIENT[client]!,
);

const ENDPOINT_CHOICES = ["create", "bring-your-own"];

/** Check the network props on their own (the subnets are checked against the VPC by RunlogNetwork). */
export function validateNetworkProps(props: RunlogNetworkProps): void {
  const { vpc, vpcSubnets, securityGroups, vpcEndpoints } = props;
  if (vpc === undefined) {
    for (const prop of ["vpcSubnets", "securityGroups", "vpcEndpoints"] as const) {
      if (props[prop] !== undefined) throw new RunlogPropsError(prop, "needs `vpc`: the VPC it belongs to");
    }
    return;
  }
  if (typeof vpc !== "object" || vpc === null || typeof vpc.selectSubnets !== "function") {
    throw new RunlogPropsError("vpc", "must be an IVpc (ec2.Vpc, or Vpc.fromLookup / fromVpcAttributes)");
  }
  if (vpcSubnets !== undefined && (typeof vpcSubnets !== "object" || vpcSubnets === null)) {
    throw new RunlogPropsError("vpcSubnets", `must be a SubnetSelection, got ${String(vpcSubnets)}`);
  }
  if (
    securityGroups !== undefined &&
    (!Array.isArray(securityGroups) ||
      securityGroups.length === 0 ||
      securityGroups.some((group) => typeof group?.securityGroupId !== "string"))
  ) {
    throw new RunlogPropsError("securityGroups", "must list at least one ISecurityGroup");
  }
  if (vpcEndpoints !== undefined && !ENDPOINT_CHOICES.includes(vpcEndpoints)) {
    throw new RunlogPropsError(
      "vpcEndpoints",
      `must be "create" or "bring-your-own", got ${JSON.stringify(vpcEndpoints)}`,
    );
  }
}

/** What each function is given to run in the VPC. */
export interface FunctionNetwork {
  vpc: IVpc;
  vpcSubnets: SubnetSelection;
  securityGroups: ISecurityGroup[];
}

/**
 * The functions' place in the VPC: their subnets and security groups, and the endpoints of the
 * services they call when asked to make them.
 */
export class RunlogNetwork extends Construct {
  readonly functions: FunctionNetwork;
  /** The endpoints made (`vpcEndpoints: "create"`), none otherwise. */
  readonly endpoints: readonly (GatewayVpcEndpoint | InterfaceVpcEndpoint)[];

  constructor(scope: Construct, id: string, props: RunlogNetworkProps & { vpc: IVpc }) {
    super(scope, id);
    const { vpc } = props;
    const vpcSubnets = props.vpcSubnets ?? defaultSubnets(vpc);
    const subnets = selected(vpc, vpcSubnets);
    const securityGroups = props.securityGroups ?? [
      new SecurityGroup(this, "Functions", {
        vpc,
        description: "runlog functions: outbound only",
        allowAllOutbound: true,
      }),
    ];
    this.functions = { vpc, vpcSubnets, securityGroups };
    this.endpoints = props.vpcEndpoints === "create" ? this.makeEndpoints(vpc, subnets, securityGroups) : [];
  }

  private makeEndpoints(vpc: IVpc, subnets: SelectedSubnets, callers: ISecurityGroup[]) {
    const group = new SecurityGroup(this, "Endpoints", {
      vpc,
      description: "runlog VPC endpoints: HTTPS from the runlog functions",
      allowAllOutbound: false,
    });
    for (const caller of callers) group.connections.allowFrom(caller, Port.tcp(443), "HTTPS from runlog");
    return VPC_ENDPOINT_SERVICES.map(({ kind, service }) => {
      const id = service.replace(/(^|-)([a-z])/g, (_, __, c: string) => c.toUpperCase());
      return kind === "gateway"
        ? new GatewayVpcEndpoint(this, id, {
            vpc,
            service: new GatewayVpcEndpointAwsService(service),
            subnets: [{ subnets: subnets.subnets }],
          })
        : new InterfaceVpcEndpoint(this, id, {
            vpc,
            service: new InterfaceVpcEndpointAwsService(service),
            subnets: { subnets: subnets.subnets },
            securityGroups: [group],
            open: false,
            privateDnsEnabled: true,
          });
    });
  }
}

/** Private subnets with egress when the VPC has them, else its isolated ones (never public). */
function defaultSubnets(vpc: IVpc): SubnetSelection {
  return vpc.privateSubnets.length > 0
    ? { subnetType: SubnetType.PRIVATE_WITH_EGRESS }
    : { subnetType: SubnetType.PRIVATE_ISOLATED };
}

function selected(vpc: IVpc, selection: SubnetSelection): SelectedSubnets {
  let chosen: SelectedSubnets;
  try {
    chosen = vpc.selectSubnets(selection);
  } catch (error) {
    throw new RunlogPropsError("vpcSubnets", `selects no subnets of the VPC: ${(error as Error).message}`, {
      cause: error,
    });
  }
  if (chosen.subnets.length === 0) throw new RunlogPropsError("vpcSubnets", "selects no subnets of the VPC");
  const publicIds = new Set(vpc.publicSubnets.map((subnet) => subnet.subnetId));
  if (chosen.subnets.some((subnet) => publicIds.has(subnet.subnetId))) {
    throw new RunlogPropsError(
      "vpcSubnets",
      "selects a public subnet: a function there gets no public address, so reaches nothing outside the VPC; choose private or isolated subnets",
    );
  }
  return chosen;
}
