import { ENDING_CASES } from "./endings.ts";
import { FAILURE_CASES } from "./failures.ts";
import type { ContractTest, ModelContractSubject } from "./types.ts";

export { SETTLE_MS } from "./calls.ts";
export type {
  ContractFixture,
  ContractReply,
  ContractTest,
  ContractToolCall,
  ModelContractSubject,
} from "./types.ts";

/**
 * Declare, with your runner's `test`, the checks every model must pass for runlog to resume its
 * runs correctly: text streamed to onText, tool calls (bad JSON arguments kept), every ending,
 * retryable versus rejected failures, a cut stream, the step's deadline and a cancel. Each test
 * opens a fresh fixture from `subject` and closes it. Asserts with node:assert, so it runs under
 * vitest, jest or node:test alike.
 */
export function describeModelContract(test: ContractTest, subject: ModelContractSubject): void {
  for (const check of [...ENDING_CASES, ...FAILURE_CASES]) {
    test(`${subject.name}: ${check.name}`, async () => {
      const fixture = await subject.open();
      try {
        await check.run(fixture);
      } finally {
        await fixture.close?.();
      }
    });
  }
}
