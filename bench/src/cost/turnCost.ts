/**
 * What one agent turn costs on AWS, recomputed from a synthesized template (issue 27, item 5): the
 * state transitions the deployed definition takes, the memory and architecture of the functions
 * its tasks invoke, and the write units of the items a turn stores. Pure: the template and the
 * item sizes come in, priced rows come out. `fromTemplate.ts` feeds it the real template; the
 * guide's table (docs/guides/deploy-to-aws.md) is checked against it by test/cdk/turnCost.test.ts.
 */
import type { AttributeValue } from "@aws-sdk/client-dynamodb";

/** List prices, us-east-1 (Step Functions Standard, Lambda, DynamoDB on-demand), in dollars. */
export const PRICES = {
  transition: 0.000025,
  lambdaGbSecond: { arm64: 0.0000133334, x86_64: 0.0000166667 } as Record<string, number>,
  lambdaRequest: 0.0000002,
  writeUnit: 0.000000625,
  readUnit: 0.000000125,
} as const;

/** What the template cannot say: how long the model and the tool take, and the reads a turn makes. */
export interface Assumptions {
  /** CallModel's duration, mostly waiting for the model. */
  modelSeconds: number;
  /** RunTool's duration. */
  toolSeconds: number;
  /** Strongly consistent read units a turn's steps spend reading the new tail (warm Lambdas cache the log). */
  readUnits: number;
}
export const ASSUMED: Assumptions = { modelSeconds: 2, toolSeconds: 0.1, readUnits: 5 };

interface State {
  Type: string;
  Next?: string;
  End?: boolean;
  Choices?: { StringEquals?: string; Next: string }[];
  ItemProcessor?: { StartAt: string; States: Record<string, State> };
}
interface Resource {
  Type: string;
  Properties?: Record<string, unknown>;
}
export interface Template {
  Resources: Record<string, Resource>;
}

/** The states one turn enters, as Step Functions bills them: from CallModel answering with `calls` tool calls to the next CallModel. */
export function turnStates(states: Record<string, State>, calls: number): string[] {
  const entered: string[] = [];
  for (let name = "CallModel"; ; ) {
    const state = states[name];
    if (!state) throw new Error(`the definition has no state ${name}`);
    entered.push(name);
    let next: string | undefined;
    if (state.Type === "Choice") next = state.Choices?.find((c) => c.StringEquals === "tools")?.Next;
    else if (state.Type === "Map" && state.ItemProcessor) {
      for (let call = 0; call < calls; call++) entered.push(...iteration(state.ItemProcessor));
      next = state.Next;
    } else next = state.Next;
    if (next === "CallModel" || next === undefined) return entered;
    name = next;
  }
}

function iteration(machine: { StartAt: string; States: Record<string, State> }): string[] {
  const entered: string[] = [];
  for (
    let name: string | undefined = machine.StartAt;
    name !== undefined;
    name = machine.States[name]?.Next
  ) {
    entered.push(name);
    if (machine.States[name]?.End) break;
  }
  return entered;
}

/** The template's one state machine: its definition and, per task state, the function it invokes. */
export function machineOf(template: Template): {
  states: Record<string, State>;
  functionOfState(name: string): { memoryMb: number; architecture: string };
} {
  const machines = Object.values(template.Resources).filter(
    (r) => r.Type === "AWS::StepFunctions::StateMachine",
  );
  if (machines.length !== 1)
    throw new Error(`expected one state machine in the template, found ${machines.length}`);
  const props = machines[0]!.Properties as {
    DefinitionString: string;
    DefinitionSubstitutions: Record<string, { Ref: string }>;
  };
  const definition = JSON.parse(props.DefinitionString) as { States: Record<string, State> };
  const all = (states: Record<string, State>): [string, State][] =>
    Object.entries(states).flatMap(([n, s]) => [
      [n, s] as [string, State],
      ...(s.ItemProcessor ? all(s.ItemProcessor.States) : []),
    ]);
  const byName = new Map(all(definition.States));
  return {
    states: definition.States,
    functionOfState(name) {
      const state = byName.get(name);
      const text = JSON.stringify(state ?? {});
      const placeholder = Object.keys(props.DefinitionSubstitutions).find((p) => text.includes(`\${${p}}`));
      if (!placeholder) throw new Error(`state ${name} invokes no function of the template`);
      // A placeholder names the function's published version; the version names the function.
      const versionId = props.DefinitionSubstitutions[placeholder]!.Ref;
      const fnId =
        (template.Resources[versionId]?.Properties?.FunctionName as { Ref?: string } | undefined)?.Ref ??
        versionId;
      const fn = template.Resources[fnId];
      if (fn?.Type !== "AWS::Lambda::Function")
        throw new Error(`state ${name}: ${fnId} is not a Lambda function`);
      const memoryMb = Number(fn.Properties?.MemorySize ?? 128);
      const architecture = ((fn.Properties?.Architectures as string[] | undefined) ?? ["x86_64"])[0]!;
      return { memoryMb, architecture };
    },
  };
}

/**
 * An item's size as DynamoDB bills it: each attribute's name plus its value (a string's UTF-8
 * bytes, a binary's bytes, a number's significant digits in half bytes plus one).
 */
export function dynamoItemBytes(item: Record<string, AttributeValue>): number {
  let bytes = 0;
  for (const [name, value] of Object.entries(item))
    bytes += Buffer.byteLength(name, "utf8") + valueBytes(value);
  return bytes;
}

function valueBytes(value: AttributeValue): number {
  if (value.S !== undefined) return Buffer.byteLength(value.S, "utf8");
  if (value.B !== undefined) return value.B.length;
  if (value.N !== undefined)
    return Math.ceil(value.N.replace(/^-|\./g, "").replace(/^0+/, "").length / 2) + 1;
  if (value.BOOL !== undefined || value.NULL !== undefined) return 1;
  if (value.M !== undefined) return 3 + dynamoItemBytes(value.M);
  if (value.L !== undefined) return 3 + value.L.reduce((sum, v) => sum + 1 + valueBytes(v), 0);
  throw new Error(`an attribute type this estimate does not price: ${Object.keys(value).join(", ")}`);
}

export interface CostRow {
  part: string;
  count: string;
  dollars: number;
}

export interface TurnCost {
  rows: CostRow[];
  dollars: number;
  /** The states a one-call turn enters. */
  transitions: string[];
  /** Write units of the turn's items, in the order written. */
  writeUnits: number[];
}

/** Price one turn (one model call asking for one tool) from the template and the bytes of the items it writes. */
export function turnCost(template: Template, itemBytes: number[], assumed: Assumptions = ASSUMED): TurnCost {
  const machine = machineOf(template);
  const transitions = turnStates(machine.states, 1);
  const lambda = (state: string, seconds: number): CostRow => {
    const { memoryMb, architecture } = machine.functionOfState(state);
    const price = PRICES.lambdaGbSecond[architecture];
    if (price === undefined) throw new Error(`no Lambda price for architecture ${architecture}`);
    const gbSeconds = (memoryMb / 1024) * seconds;
    return {
      part: `Lambda ${state}: ${memoryMb} MB ${architecture} × ${seconds} s`,
      count: `${round(gbSeconds, 4)} GB-s + 1 request`,
      dollars: gbSeconds * price + PRICES.lambdaRequest,
    };
  };
  const writeUnits = itemBytes.map((bytes) => Math.ceil(bytes / 1024));
  const wru = writeUnits.reduce((a, b) => a + b, 0);
  const rows: CostRow[] = [
    {
      part: `state transitions: ${transitions.join(", ")}`,
      count: `${transitions.length}`,
      dollars: transitions.length * PRICES.transition,
    },
    lambda("CallModel", assumed.modelSeconds),
    lambda("RunTool", assumed.toolSeconds),
    {
      part: `DynamoDB writes: ${itemBytes.length} events of ${itemBytes.join(", ")} bytes`,
      count: `${wru} write units`,
      dollars: wru * PRICES.writeUnit,
    },
    {
      part: "DynamoDB reads of the new tail (assumed)",
      count: `${assumed.readUnits} read units`,
      dollars: assumed.readUnits * PRICES.readUnit,
    },
  ];
  return { rows, dollars: rows.reduce((sum, row) => sum + row.dollars, 0), transitions, writeUnits };
}

const round = (value: number, digits: number) => Number(value.toFixed(digits));
/** Dollars as the guide writes them: seven decimals, a fraction of a cent. */
export const usd = (dollars: number) => `$${dollars.toFixed(7)}`;

/** The rows as a markdown table, the total last. */
export function costMarkdown(cost: TurnCost): string {
  return [
    "| part | count per turn | cost |",
    "| --- | --- | ---: |",
    ...cost.rows.map((row) => `| ${row.part} | ${row.count} | ${usd(row.dollars)} |`),
    `| **total** | | **${usd(cost.dollars)} a turn, $${(cost.dollars * 1000).toFixed(3)} per 1,000 turns** |`,
  ].join("\n");
}
