import { Stack } from "aws-cdk-lib";
import { CfnGlobalTable, CfnTable, type ITable } from "aws-cdk-lib/aws-dynamodb";
import type { IConstruct } from "constructs";
import { TTL_ATTRIBUTE } from "../lib/adapters/dynamodb/items.ts";
import { RunlogPropsError } from "./props.ts";
import { layout } from "./table.ts";

interface KeyElement {
  attributeName: string;
  keyType: string;
}
interface Index {
  indexName: string;
  keySchema: KeyElement[];
}

const keysOf = (
  schema: readonly { AttributeName?: string | undefined; KeyType?: string | undefined }[] | undefined,
) => (schema ?? []).map((key) => `${key.AttributeName}:${key.KeyType}`).join(",");
const resolvedKeys = (schema: KeyElement[] | undefined) =>
  (schema ?? []).map((key) => `${key.attributeName}:${key.keyType}`).join(",");

/** What is wrong with a table's key schema and TTL, set when it is made (Table or TableV2); [] when nothing is. */
function madeProblems(cfn: CfnTable | CfnGlobalTable, retention: boolean): string[] {
  const resolve = (value: unknown) => Stack.of(cfn).resolve(value) as unknown;
  const found: string[] = [];
  const keys = resolvedKeys(resolve(cfn.keySchema) as KeyElement[]);
  if (keys !== keysOf(layout.KeySchema)) {
    found.push(`has the key schema [${keys}], runlog needs [${keysOf(layout.KeySchema)}]`);
  }
  const ttl = resolve(cfn.timeToLiveSpecification) as
    | { attributeName?: string; enabled?: boolean }
    | undefined;
  if (retention && (ttl?.attributeName !== TTL_ATTRIBUTE || ttl.enabled === false)) {
    found.push(`needs its TTL on ${TTL_ATTRIBUTE} for retentionDays to delete finished runs`);
  }
  return found;
}

/** What is wrong with a table's global secondary indexes, which may be added after it is made; [] when nothing is. */
function indexProblems(cfn: CfnTable | CfnGlobalTable): string[] {
  const resolve = (value: unknown) => Stack.of(cfn).resolve(value) as unknown;
  const found: string[] = [];
  const indexes = (resolve(cfn.globalSecondaryIndexes) ?? []) as Index[];
  for (const wanted of layout.GlobalSecondaryIndexes ?? []) {
    const index = indexes.find((i) => i.indexName === wanted.IndexName);
    if (!index) {
      found.push(`has no global secondary index ${wanted.IndexName} [${keysOf(wanted.KeySchema)}]`);
    } else if (resolvedKeys(index.keySchema) !== keysOf(wanted.KeySchema)) {
      found.push(
        `has the index ${wanted.IndexName} keyed [${resolvedKeys(index.keySchema)}], runlog needs [${keysOf(wanted.KeySchema)}]`,
      );
    }
  }
  return found;
}

/**
 * Check a table the user brings (the `table` prop) against runlog's layout as far as synth can
 * see it. A Table or TableV2 of this app: its keys and TTL, fixed when it is made, now (a
 * RunlogPropsError naming `table`); its indexes, which may be added after the construct is made,
 * when the app synthesizes (CDK's validation error, holding runlog's message). An imported table
 * cannot be seen and must be made to the layout in docs/reference/construct-props.md.
 */
export function checkOwnTable(scope: IConstruct, table: ITable, options: { retention: boolean }): void {
  const cfn = table.node.defaultChild;
  if (!(cfn instanceof CfnTable || cfn instanceof CfnGlobalTable)) return;
  const [made] = madeProblems(cfn, options.retention);
  if (made !== undefined) throw new RunlogPropsError("table", `${table.node.path} ${made}`);
  scope.node.addValidation({
    validate: () =>
      indexProblems(cfn).map(
        (problem) => new RunlogPropsError("table", `${table.node.path} ${problem}`).message,
      ),
  });
}
