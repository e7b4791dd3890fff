import type { Synthesized } from "../../cdk/synth.ts";
import { type LocalResource, resolve, resolveDeep } from "./template.ts";

type Pattern = Record<string, unknown>;
interface Rule {
  logicalId: string;
  /** The bus it is on: "default", or the name of the bus. */
  bus: string;
  pattern: Pattern;
  /** The ARNs of the functions it invokes. */
  targets: string[];
}

/** Whether an event matches an EventBridge pattern (lists of exact values, nested objects). */
export function matches(pattern: Pattern, event: Record<string, unknown>): boolean {
  return Object.entries(pattern).every(([key, expected]) => {
    const actual = event[key];
    if (Array.isArray(expected)) {
      const values = Array.isArray(actual) ? actual : [actual];
      return values.some((value) => expected.includes(value));
    }
    if (expected !== null && typeof expected === "object") {
      return actual !== null && typeof actual === "object" && matches(expected as Pattern, actual as never);
    }
    throw new Error(`event pattern: unsupported ${key}: ${JSON.stringify(expected)}`);
  });
}

/** The name of the bus a rule is on: "default" when it names none, a bus of the template by its Name. */
function busOf(s: Synthesized, name: unknown): string {
  if (name === undefined) return DEFAULT_BUS;
  if (typeof name === "string") return name;
  const ref = (name as { Ref?: unknown }).Ref;
  const bus = typeof ref === "string" ? s.template.findResources("AWS::Events::EventBus")[ref] : undefined;
  if (typeof bus?.Properties.Name !== "string")
    throw new Error(`event rule: unknown bus ${JSON.stringify(name)}`);
  return bus.Properties.Name;
}

/** The name the default bus goes by here. */
export const DEFAULT_BUS = "default";

/** The buses a deployment of this template would have: the one named as its own (the stack makes it). */
export function ownBusName(s: Synthesized): string {
  const [bus] = Object.values(s.template.findResources("AWS::Events::EventBus"));
  if (typeof bus?.Properties.Name !== "string") throw new Error("the template makes no event bus");
  return bus.Properties.Name;
}

/** The pattern rules of the template on every bus (schedules are not events), targets resolved to ARNs. */
export function busRules(s: Synthesized, resources: Readonly<Record<string, LocalResource>>): Rule[] {
  return Object.entries(s.template.findResources("AWS::Events::Rule"))
    .filter(([, rule]) => rule.Properties.EventPattern)
    .map(([logicalId, rule]) => ({
      logicalId,
      bus: busOf(s, rule.Properties.EventBusName),
      pattern: resolveDeep(rule.Properties.EventPattern, resources) as Pattern,
      targets: (rule.Properties.Targets as { Arn: unknown }[]).map((target) =>
        resolve(target.Arn, resources),
      ),
    }));
}

/**
 * The event buses: an event put on one goes to the targets of every rule on it that it matches,
 * invoked asynchronously as EventBridge does. A delivery that fails is kept in `failures`
 * (on AWS it would be retried, then land in the dead-letter queue): a test expects none.
 */
export class EventBus {
  /** Each delivery, with what its target answered once it has. */
  readonly delivered: { rule: string; target: string; event: Record<string, unknown>; result?: unknown }[] =
    [];
  readonly failures: { rule: string; target: string; error: unknown }[] = [];
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly rules: readonly Rule[],
    private readonly invoke: (arn: string, event: unknown) => Promise<unknown>,
  ) {}

  /** Put an event on a bus: the default one (where AWS services put theirs) unless named. */
  put(event: Record<string, unknown>, bus: string = DEFAULT_BUS): void {
    for (const rule of this.rules) {
      if (rule.bus !== bus || !matches(rule.pattern, event)) continue;
      for (const target of rule.targets) {
        const record: (typeof this.delivered)[number] = { rule: rule.logicalId, target, event };
        this.delivered.push(record);
        const delivery = this.invoke(target, event).then(
          (result) => {
            record.result = result;
          },
          (error: unknown) => {
            this.failures.push({ rule: rule.logicalId, target, error });
          },
        );
        this.inFlight.add(delivery);
        void delivery.finally(() => this.inFlight.delete(delivery));
      }
    }
  }

  /** Deliveries still under way. */
  pending(): Promise<void>[] {
    return [...this.inFlight];
  }
}
