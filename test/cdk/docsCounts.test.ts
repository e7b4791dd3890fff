import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { layout } from "../../cdk/table.ts";
import { synthesize } from "./synth.ts";

/** What the docs say of the deployed stack, checked against the construct and the table layout. */
const ROOT = join(import.meta.dirname, "..", "..");
const readDoc = (path: string) => readFileSync(join(ROOT, path), "utf8");

describe("docs/guides/deploy-to-aws.md", () => {
  it("counts the alarms of the default stack, and the 2 each tool group adds", () => {
    const page = readDoc("docs/guides/deploy-to-aws.md");
    const said = /\| CloudWatch alarms \((\d+); (\d+) more for each tool group\) \|/.exec(page);
    expect(said, "the CloudWatch alarms row").not.toBeNull();
    const plain = synthesize().template.findResources("AWS::CloudWatch::Alarm");
    expect(Object.keys(plain).length).toBe(Number(said![1]));
    const grouped = synthesize({
      toolGroups: { payments: { tools: ["issue_refund"] } },
    }).template.findResources("AWS::CloudWatch::Alarm");
    expect(Object.keys(grouped).length - Object.keys(plain).length).toBe(Number(said![2]));
  });

  it("names every index of the table", () => {
    const page = readDoc("docs/guides/deploy-to-aws.md");
    const row = page.split("\n").find((line) => line.startsWith("| DynamoDB table"));
    for (const index of layout.GlobalSecondaryIndexes ?? []) expect(row).toContain(`\`${index.IndexName}\``);
  });
});

describe("docs/reference/construct-props.md, Bringing your own table", () => {
  const page = readDoc("docs/reference/construct-props.md");
  const section = page.slice(
    page.indexOf("## Bringing your own table"),
    page.indexOf("## Deploys and running runs"),
  );
  const rows = section.split("\n").filter((line) => line.startsWith("| index `"));

  it("lists exactly the layout's indexes, each with its keys", () => {
    const indexes = layout.GlobalSecondaryIndexes ?? [];
    expect(rows.map((row) => /^\| index `(\w+)`/.exec(row)?.[1]).sort()).toEqual(
      indexes.map((index) => index.IndexName).sort(),
    );
    for (const index of indexes) {
      const row = rows.find((r) => r.startsWith(`| index \`${index.IndexName}\``))!;
      const [, , partition, sort] = row.split("|").map((cell) => cell.trim());
      const key = (type: string) => index.KeySchema?.find((k) => k.KeyType === type)?.AttributeName;
      expect(partition?.startsWith(`\`${key("HASH")}\``), row).toBe(true);
      expect(sort?.startsWith(`\`${key("RANGE")}\``), row).toBe(true);
    }
  });

  it("tells an imported table every index", () => {
    const names = (layout.GlobalSecondaryIndexes ?? []).map((index) => `"${index.IndexName}"`);
    expect(section).toContain(`globalIndexes: [${names.join(", ")}]`);
  });
});
