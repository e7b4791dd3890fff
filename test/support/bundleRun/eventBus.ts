import type { Synthesized } from "../../cdk/synth.ts";
import { type LocalResource, resolve, resolveDeep } from "./template.ts";

type Pattern = Record<string, unknown>;
interface Rule {
  logicalId: string;
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

/** The default bus's pattern rules of the template (schedules are not events), targets resolved to ARNs. */
export function defaultBusRules(s: Synthesized, resources: Readonly<Record<string, LocalResource>>): Rule[] {
  return Object.entries(s.template.findResources("AWS::Events::Rule"))
    .filter(([, rule]) => rule.Properties.EventPattern && rule.Properties.EventBusName === undefined)
    .map(([logicalId, rule]) => ({
      logicalId,
      pattern: resolveDeep(rule.Properties.EventPattern, resources) as Pattern,
      targets: (rule.Properties.Targets as { Arn: unknown }[]).map((target) =>
        resolve(target.Arn, resources),
      ),
    }));
}

/**
 * The default event bus: an event put here goes to the targets of every rule it matches,
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

  put(event: Record<string, unknown>): void {
    for (const rule of this.rules) {
      if (!matches(rule.pattern, event)) continue;
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
