import type { ExecutionInput, Orchestrator } from "../../ports/runtime.ts";

/**
 * Runs executions without waiting for them, as Step Functions does: `execute`
 * returns once the execution is under way. A server uses it so a request is
 * answered at once; `drain` waits for what is still running before shutdown.
 */
export class BackgroundOrchestrator implements Orchestrator {
  private readonly running = new Set<Promise<void>>();

  constructor(
    private readonly inner: Orchestrator,
    private readonly onError: (input: ExecutionInput, error: unknown) => void,
  ) {}

  leaseOwnerFor(run: { runId: string; generation: number }): string {
    return this.inner.leaseOwnerFor(run);
  }

  isAlive(owner: string, claimedAt?: number): Promise<boolean> {
    return this.inner.isAlive(owner, claimedAt);
  }

  executionOf(owner: string): Promise<"none" | "running" | "ended"> {
    return this.inner.executionOf(owner);
  }

  stop(owner: string, reason: string): Promise<boolean> {
    return this.inner.stop(owner, reason);
  }

  async execute(input: ExecutionInput): Promise<void> {
    const execution = this.inner
      .execute(input)
      .catch((error: unknown) => this.onError(input, error))
      .finally(() => this.running.delete(execution));
    this.running.add(execution);
  }

  /** Wait until every execution started so far has ended. */
  async drain(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }
}
