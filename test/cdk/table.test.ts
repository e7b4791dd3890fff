import { join } from "node:path";
import { App, RemovalPolicy, Stack } from "aws-cdk-lib";
import { Template } from "aws-cdk-lib/assertions";
import { AttributeType, type ITable, Table, TableV2 } from "aws-cdk-lib/aws-dynamodb";
import { describe, expect, it } from "vitest";
import type { RunlogProps } from "../../cdk/props.ts";
import { Runlog } from "../../cdk/runlog.ts";
import { RunlogTable } from "../../cdk/table.ts";
import { OWNER_INDEX, PARENT_INDEX, STATUS_SHARD_INDEX } from "../../lib/adapters/dynamodb/table.ts";
import { NAMES } from "../../lib/runtime/config.ts";
import { permissionsOf, synthesize, synthesizeConstruct } from "./synth.ts";

const AGENTS = join(import.meta.dirname, "fixtures", "agents.ts");
const IMPORTED_ARN = "arn:aws:dynamodb:us-east-1:123456789012:table/their-runs";

/** A user's stack holding the construct on a table the user makes with `make`; the template, or what synth threw. */
function withTable(make: (stack: Stack) => ITable, props: Partial<RunlogProps> = {}) {
  const stack = new Stack(new App({ context: { "aws:cdk:bundling-stacks": [] } }), "UserStack", {
    env: { account: "123456789012", region: "us-east-1" },
  });
  const table = make(stack);
  const runlog = new Runlog(stack, "Agents", { agentsModule: AGENTS, table, ...props });
  return { stack, table, runlog, synth: () => Template.fromStack(stack) };
}

/** runlog's layout written out by hand, as a user would, with TableV2 (an ITable: exactOptionalPropertyTypes meets aws-cdk-lib). */
const tableV2 = (stack: Stack, options: { statusIndex?: boolean; ttl?: boolean } = {}): ITable =>
  new TableV2(stack, "Mine", {
    partitionKey: { name: "runId", type: AttributeType.STRING },
    sortKey: { name: "seq", type: AttributeType.NUMBER },
    ...(options.ttl ? { timeToLiveAttribute: "expiresAt" } : {}),
    globalSecondaryIndexes: [
      ...(options.statusIndex === false
        ? []
        : [
            {
              indexName: STATUS_SHARD_INDEX,
              partitionKey: { name: "statusShard", type: AttributeType.STRING },
              sortKey: { name: "updatedAt", type: AttributeType.STRING },
            },
          ]),
      {
        indexName: PARENT_INDEX,
        partitionKey: { name: "parentRunId", type: AttributeType.STRING },
        sortKey: { name: "updatedAt", type: AttributeType.STRING },
      },
      {
        indexName: OWNER_INDEX,
        partitionKey: { name: "ownerScope", type: AttributeType.STRING },
        sortKey: { name: "updatedAt", type: AttributeType.STRING },
      },
    ],
  }) as ITable;

describe("the table the construct makes", () => {
  it("is protected from deletion by default, and retained when the stack goes", () => {
    const s = synthesize();
    s.template.hasResource("AWS::DynamoDB::Table", {
      DeletionPolicy: "Retain",
      UpdateReplacePolicy: "Retain",
      Properties: { DeletionProtectionEnabled: true },
    });
  });

  it("drops deletion protection only when asked", () => {
    const s = synthesizeConstruct({ agentsModule: AGENTS, tableDeletionProtection: false });
    s.template.hasResourceProperties("AWS::DynamoDB::Table", { DeletionProtectionEnabled: false });
  });
});

describe("a table the user brings", () => {
  it("is used instead of one of the construct's: the functions are told it and granted it and its indexes", () => {
    const { stack, table, runlog, synth } = withTable(
      (stack) => new RunlogTable(stack, "Mine").table as ITable,
    );
    const template = synth();
    expect(Object.keys(template.findResources("AWS::DynamoDB::Table"))).toEqual([
      stack.getLogicalId(table.node.defaultChild as never),
    ]);
    expect(runlog.table).toBe(table);
    const tableId = stack.getLogicalId(table.node.defaultChild as never);
    const api =
      template.findResources("AWS::Lambda::Function")[
        stack.getLogicalId(runlog.functions.api.node.defaultChild as never)
      ]!;
    expect(api.Properties.Environment.Variables[NAMES.tableName]).toEqual({ Ref: tableId });
    const { resources } = permissionsOf(
      template,
      stack.getLogicalId(runlog.functions.api.role!.node.defaultChild as never),
    );
    expect(resources).toContainEqual({ "Fn::GetAtt": [tableId, "Arn"] });
    expect(resources).toContainEqual({
      "Fn::Join": ["", [{ "Fn::GetAtt": [tableId, "Arn"] }, `/index/${STATUS_SHARD_INDEX}`]],
    });
  });

  it("may be a TableV2 written to the layout", () => {
    const { synth } = withTable((stack) => tableV2(stack, { ttl: true }), { retentionDays: 7 });
    expect(Object.keys(synth().findResources("AWS::DynamoDB::GlobalTable"))).toHaveLength(1);
  });

  it("may be imported: used as it is, granted by its ARN and its indexes' ARNs", () => {
    const { stack, runlog, synth } = withTable((stack) =>
      Table.fromTableAttributes(stack, "Theirs", {
        tableArn: IMPORTED_ARN,
        globalIndexes: [STATUS_SHARD_INDEX, PARENT_INDEX, OWNER_INDEX],
      }),
    );
    const template = synth();
    expect(template.findResources("AWS::DynamoDB::Table")).toEqual({});
    const { resources } = permissionsOf(
      template,
      stack.getLogicalId(runlog.functions.api.role!.node.defaultChild as never),
    );
    expect(resources).toEqual(
      expect.arrayContaining([
        IMPORTED_ARN,
        `${IMPORTED_ARN}/index/${STATUS_SHARD_INDEX}`,
        `${IMPORTED_ARN}/index/${PARENT_INDEX}`,
      ]),
    );
  });

  it("is refused at synth when it has no status index, naming the prop", () => {
    const { synth } = withTable((stack) => tableV2(stack, { statusIndex: false }));
    expect(synth).toThrow(/runlog: table UserStack\/Mine/);
    expect(synth).toThrow(`has no global secondary index ${STATUS_SHARD_INDEX}`);
  });

  // Keys and TTL are fixed when a table is made: a RunlogPropsError with its prop when the construct is.
  it.each([
    [
      "another key schema",
      (stack: Stack) =>
        new Table(stack, "Mine", { partitionKey: { name: "pk", type: AttributeType.STRING } }) as ITable,
      {},
      "has the key schema [pk:HASH], runlog needs [runId:HASH,seq:RANGE]",
    ],
    [
      "no TTL on expiresAt when runs are kept retentionDays",
      (stack: Stack) => tableV2(stack),
      { retentionDays: 7 },
      "needs its TTL on expiresAt",
    ],
  ])(
    "is refused when the construct is made when it has %s, naming the prop",
    (_case, make, props, problem) => {
      expect(() => withTable(make, props)).toThrow(
        expect.objectContaining({
          name: "RunlogPropsError",
          prop: "table",
          message: expect.stringMatching(/^runlog: table UserStack\/Mine /),
        }),
      );
      expect(() => withTable(make, props)).toThrow(problem);
    },
  );

  it.each(["tableRemovalPolicy", "tableDeletionProtection"] as const)(
    "is the user's to protect: %s beside it is refused, naming the prop",
    (prop) => {
      const value = prop === "tableRemovalPolicy" ? RemovalPolicy.DESTROY : false;
      expect(() => withTable((stack) => tableV2(stack), { [prop]: value })).toThrow(
        expect.objectContaining({ name: "RunlogPropsError", prop, message: expect.stringContaining(prop) }),
      );
    },
  );
});
