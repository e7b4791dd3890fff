import { tmpdir } from "node:os";
import { join } from "node:path";
import { App, Stack } from "aws-cdk-lib";
import { type ISecurityGroup, type IVpc, SecurityGroup, SubnetType, Vpc } from "aws-cdk-lib/aws-ec2";
import { AwsSolutionsChecks } from "cdk-nag";
import { build } from "esbuild";
import { afterAll, describe, expect, it } from "vitest";
import { ENDPOINT_OF_CLIENT, FUNCTION_SDK_CLIENTS, validateNetworkProps } from "../../cdk/network.ts";
import { RunlogPropsError } from "../../cdk/props.ts";
import { Runlog } from "../../cdk/runlog.ts";
import { AGENTS_IMPORT, functionFile, VPC_ACCESS_POLICY } from "../../cdk/runlogFunction.ts";
import { cfnLinter } from "./cfnLint.ts";
import { HANDLERS, isolatedVpc, synthesizeConstruct } from "./synth.ts";

const AGENTS = join(import.meta.dirname, "fixtures", "agents.ts");
/** cfn-lint over the whole template and esbuild over every handler: minutes on a loaded machine, as bundling.test.ts allows. */
const SLOW = 240_000;

/**
 * The AWS SDK client packages the functions' bundles hold: esbuild follows every import (static
 * and dynamic) from each handler, as the construct's bundling does, and its metafile lists the
 * files it took. A client added anywhere the functions reach shows up here.
 */
let scanned: Promise<string[]> | undefined;
const clientsTheFunctionsBundle = () => {
  scanned ??= scanBundles();
  return scanned;
};

async function scanBundles(): Promise<string[]> {
  const result = await build({
    entryPoints: HANDLERS.map((handler) => functionFile(handler)),
    bundle: true,
    write: false,
    metafile: true,
    platform: "node",
    format: "esm",
    target: "node22",
    outdir: join(tmpdir(), "runlog-network-scan"),
    mainFields: ["module", "main"],
    alias: { [AGENTS_IMPORT]: AGENTS },
    logLevel: "silent",
  });
  const clients = new Set<string>();
  for (const input of Object.keys(result.metafile.inputs)) {
    const match = /node_modules\/(@aws-sdk\/client-[a-z0-9-]+)\//.exec(input);
    if (match) clients.add(match[1]!);
  }
  return [...clients].sort();
}

/** A VPC with isolated subnets only: no NAT, no internet gateway route for the functions. */
const s = synthesizeConstruct((stack) => ({
  agentsModule: AGENTS,
  modelKeySecret: "arn:aws:secretsmanager:us-east-1:123456789012:secret:model-key-AbCdEf",
  vpc: isolatedVpc(stack),
  vpcEndpoints: "create",
}));
const template = s.template.toJSON() as {
  Resources: Record<string, { Type: string; Properties: Record<string, unknown> }>;
};
const ofType = (type: string) =>
  Object.entries(template.Resources).filter(([, resource]) => resource.Type === type);
const isolatedSubnetIds = ofType("AWS::EC2::Subnet").map(([id]) => id);

/** The service name an endpoint is for: the part after com.amazonaws.<region>. */
function serviceOf(properties: Record<string, unknown>): string {
  const name = JSON.stringify(properties.ServiceName);
  const match =
    /\.([a-z0-9-]+)"\]\]\}$/.exec(name) ?? /com\.amazonaws\.[a-z0-9-]+\.([a-z0-9-]+)"$/.exec(name);
  if (!match) throw new Error(`an endpoint's ServiceName ${name} is not com.amazonaws.<region>.<service>`);
  return match[1]!;
}

describe("functions in a VPC with isolated subnets only", () => {
  const functions = ofType("AWS::Lambda::Function");

  it("puts every function runlog makes in the VPC's isolated subnets, behind runlog's security group", () => {
    expect(functions.length).toBeGreaterThanOrEqual(HANDLERS.length);
    const group = s.logicalId(s.runlog.network!.functions.securityGroups[0]!);
    for (const [id, fn] of functions) {
      const config = fn.Properties.VpcConfig as { SubnetIds: { Ref: string }[]; SecurityGroupIds: unknown[] };
      expect(config, id).toBeDefined();
      expect(config.SubnetIds.map((subnet) => subnet.Ref).sort(), id).toEqual([...isolatedSubnetIds].sort());
      expect(config.SecurityGroupIds, id).toEqual([{ "Fn::GetAtt": [group, "GroupId"] }]);
    }
  });

  it("lets Lambda attach each function: its role holds the VPC access policy", () => {
    for (const fn of Object.values(s.runlog.functions)) {
      const role = template.Resources[s.logicalId(fn.role!)]!;
      expect(JSON.stringify(role.Properties.ManagedPolicyArns), fn.node.path).toContain(VPC_ACCESS_POLICY);
    }
  });

  it(
    "bundles only AWS SDK clients runlog knows the endpoint of, and lists them all",
    async () => {
      const bundled = await clientsTheFunctionsBundle();
      // The scan is live: the functions do call DynamoDB and Step Functions.
      expect(bundled).toEqual(expect.arrayContaining(["@aws-sdk/client-dynamodb", "@aws-sdk/client-sfn"]));
      expect(bundled.filter((client) => !(client in ENDPOINT_OF_CLIENT))).toEqual([]);
      expect(bundled).toEqual([...FUNCTION_SDK_CLIENTS].sort());
    },
    SLOW,
  );

  it(
    "has an endpoint, in the functions' subnets, for every AWS service the functions call",
    async () => {
      const endpoints = ofType("AWS::EC2::VPCEndpoint").map(([, endpoint]) => ({
        service: serviceOf(endpoint.Properties),
        type: endpoint.Properties.VpcEndpointType ?? "Gateway",
        properties: endpoint.Properties,
      }));
      for (const client of await clientsTheFunctionsBundle()) {
        const { kind, service } = ENDPOINT_OF_CLIENT[client]!;
        const endpoint = endpoints.find((e) => e.service === service);
        expect(endpoint, `${client}: no ${service} endpoint`).toBeDefined();
        if (kind === "gateway") {
          expect(endpoint!.type, service).toBe("Gateway");
          expect((endpoint!.properties.RouteTableIds as unknown[]).length, service).toBe(
            isolatedSubnetIds.length,
          );
        } else {
          expect(endpoint!.type, service).toBe("Interface");
          expect(endpoint!.properties.PrivateDnsEnabled, service).toBe(true);
          const subnets = (endpoint!.properties.SubnetIds as { Ref: string }[]).map((subnet) => subnet.Ref);
          expect(subnets.sort(), service).toEqual([...isolatedSubnetIds].sort());
        }
      }
    },
    SLOW,
  );

  it("opens the interface endpoints to runlog's functions on 443 only", () => {
    const group = s.logicalId(s.runlog.network!.functions.securityGroups[0]!);
    const ingress = ofType("AWS::EC2::SecurityGroupIngress").map(([, rule]) => rule.Properties);
    expect(ingress).toEqual([
      expect.objectContaining({
        IpProtocol: "tcp",
        FromPort: 443,
        ToPort: 443,
        SourceSecurityGroupId: { "Fn::GetAtt": [group, "GroupId"] },
      }),
    ]);
  });

  it("passes cdk-nag: the VPC access policy is acknowledged with its reason", () => {
    const report = new AwsSolutionsChecks(undefined, { verbose: true }).validateScope(s.runlog);
    const errors = report.violations.filter((v) => v.severity === "error");
    expect(
      errors.map((v) => `${v.ruleName} at ${v.violatingResources.map((r) => r.constructPath).join(", ")}`),
    ).toEqual([]);
  });

  describe("cfn-lint", () => {
    const linter = cfnLinter();
    afterAll(() => linter.dispose());
    const lint = linter.lint;

    it(
      "finds no error in the template",
      () => {
        const { status, output } = lint(template);
        expect(output).toBe("");
        expect(status).toBe(0);
      },
      SLOW,
    );

    it(
      "reports an error it is shown (the check is live)",
      () => {
        const broken = structuredClone(template);
        const [, endpoint] = ofType("AWS::EC2::VPCEndpoint")[0]!;
        const id = Object.keys(template.Resources).find((key) => template.Resources[key] === endpoint)!;
        broken.Resources[id]!.Properties.VpcEndpointType = "Tunnel";
        expect(lint(broken).status).not.toBe(0);
      },
      SLOW,
    );
  });
});

describe("the network props", () => {
  it.each([
    [{ vpcSubnets: { subnetType: SubnetType.PRIVATE_ISOLATED } }, "vpcSubnets"],
    [{ securityGroups: [] }, "securityGroups"],
    [{ vpcEndpoints: "create" as const }, "vpcEndpoints"],
  ])("refuse %j without vpc, naming the prop", (props, prop) => {
    expect(() => validateNetworkProps(props)).toThrow(expect.objectContaining({ prop, field: prop }));
  });

  it("refuse a vpcEndpoints that is neither create nor bring-your-own", () => {
    const stack = new Stack(new App(), "Bad");
    const vpc = new Vpc(stack, "Vpc", { natGateways: 0 }) as IVpc;
    const props = { vpc, vpcEndpoints: "yes" as "create" };
    expect(() => validateNetworkProps(props)).toThrow(RunlogPropsError);
    expect(() => validateNetworkProps(props)).toThrow(expect.objectContaining({ prop: "vpcEndpoints" }));
    expect(() => validateNetworkProps({ vpc, securityGroups: [] })).toThrow(
      expect.objectContaining({ prop: "securityGroups" }),
    );
  });

  it("refuse subnets where a function could reach nothing: public ones", () => {
    const stack = new Stack(new App({ context: { "aws:cdk:bundling-stacks": [] } }), "Public");
    const vpc = new Vpc(stack, "Vpc", { natGateways: 0 }) as IVpc;
    expect(
      () =>
        new Runlog(stack, "Agents", {
          agentsModule: AGENTS,
          vpc,
          vpcSubnets: { subnetType: SubnetType.PUBLIC },
        }),
    ).toThrow(expect.objectContaining({ prop: "vpcSubnets" }));
  });

  it("use the security groups given instead of making one, and make no endpoint by default", () => {
    const stack = new Stack(new App({ context: { "aws:cdk:bundling-stacks": [] } }), "Own");
    const vpc = new Vpc(stack, "Vpc", { natGateways: 1, maxAzs: 2 }) as IVpc;
    const group = new SecurityGroup(stack, "Mine", { vpc }) as ISecurityGroup;
    const runlog = new Runlog(stack, "Agents", { agentsModule: AGENTS, vpc, securityGroups: [group] });
    expect(runlog.network?.functions.securityGroups).toEqual([group]);
    expect(runlog.network?.endpoints).toEqual([]);
    // Private subnets with egress (the NAT's), not the public ones.
    expect(runlog.network?.functions.vpcSubnets).toEqual({ subnetType: SubnetType.PRIVATE_WITH_EGRESS });
  });
});
