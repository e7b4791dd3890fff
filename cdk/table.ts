import { RemovalPolicy } from "aws-cdk-lib";
import { AttributeType, BillingMode, ProjectionType, StreamViewType, Table } from "aws-cdk-lib/aws-dynamodb";
import { Construct } from "constructs";
import { TTL_ATTRIBUTE } from "../lib/adapters/dynamodb/items.ts";
import { tableDefinition } from "../lib/adapters/dynamodb/table.ts";

/** The attribute DynamoDB's TTL reads (epoch seconds), set on every item of a finished run (retention). */
export { TTL_ATTRIBUTE };

export interface RunlogTableProps {
  /** What happens to the runs when the stack is deleted. @default RemovalPolicy.RETAIN */
  removalPolicy?: RemovalPolicy;
  /** DynamoDB refuses to delete the table (by CloudFormation or anyone) while this is on. @default true */
  deletionProtection?: boolean;
  /** Keep the unsharded status index of older runlogs too, for the first deploy of an upgrade. @default false */
  legacyStatusIndex?: boolean;
}

/** The layout every runlog store uses: keys, attribute types, indexes (lib/adapters/dynamodb/table.ts). */
export const layout = tableDefinition("unused");
type Layout = ReturnType<typeof tableDefinition>;
const typeOf = (layout: Layout, name: string | undefined): { name: string; type: AttributeType } => {
  const attribute = layout.AttributeDefinitions?.find((a) => a.AttributeName === name);
  if (!attribute?.AttributeName) throw new Error(`table layout: no attribute definition for ${name}`);
  const types = { S: AttributeType.STRING, N: AttributeType.NUMBER, B: AttributeType.BINARY } as const;
  return { name: attribute.AttributeName, type: types[attribute.AttributeType as keyof typeof types] };
};
const keyOf = (layout: Layout, schema: Layout["KeySchema"], type: "HASH" | "RANGE") =>
  typeOf(layout, schema?.find((key) => key.KeyType === type)?.AttributeName);

/**
 * The run log table, declared from the same layout every runlog store uses
 * (lib/adapters/dynamodb/table.ts), so the deployed table and the embedded
 * one cannot drift apart: events and heads by (runId, seq), heads by status,
 * forks' heads by parent.
 */
export class RunlogTable extends Construct {
  readonly table: Table;

  constructor(scope: Construct, id: string, props: RunlogTableProps = {}) {
    super(scope, id);
    const layout = tableDefinition("unused", { legacyStatusIndex: props.legacyStatusIndex === true });
    this.table = new Table(this, "Table", {
      partitionKey: keyOf(layout, layout.KeySchema, "HASH"),
      sortKey: keyOf(layout, layout.KeySchema, "RANGE"),
      billingMode:
        layout.BillingMode === "PAY_PER_REQUEST" ? BillingMode.PAY_PER_REQUEST : BillingMode.PROVISIONED,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      timeToLiveAttribute: TTL_ATTRIBUTE,
      removalPolicy: props.removalPolicy ?? RemovalPolicy.RETAIN,
      deletionProtection: props.deletionProtection ?? true,
      // The lifecycle publisher reads the events the stream names (cdk/lifecycle.ts): keys are enough.
      stream: StreamViewType.KEYS_ONLY,
    });
    // CloudFormation adds one new index per update: a stack deployed before byParent existed gains it in one.
    for (const index of layout.GlobalSecondaryIndexes ?? []) {
      this.table.addGlobalSecondaryIndex({
        indexName: index.IndexName ?? "",
        partitionKey: keyOf(layout, index.KeySchema, "HASH"),
        sortKey: keyOf(layout, index.KeySchema, "RANGE"),
        projectionType:
          index.Projection?.ProjectionType === "ALL" ? ProjectionType.ALL : ProjectionType.KEYS_ONLY,
      });
    }
  }
}
