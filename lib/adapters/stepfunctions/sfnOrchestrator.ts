import { isDeepStrictEqual } from "node:util";
import type { ExecutionStatus, SFNClient } from "@aws-sdk/client-sfn";
import { ConflictError } from "../../core/errors.ts";
import type { ExecutionInput, Orchestrator } from "../../ports/runtime.ts";
import { sfnErrorName, toRunlogError } from "./errors.ts";
import { executionArn, executionName, executionNameOf, ownerOf } from "./executionName.ts";

export interface SfnOrchestratorOptions {
  /**
   * The client, or a function that makes it when first asked (and gives the same one after): the
   * Lambda functions pass one, so a function that starts and asks about no execution never loads
   * the SDK's Step Functions client (runtime/aws/handlerDeps.ts).
   */
  client: SFNClient | (() => Promise<SFNClient>);
  /** The run state machine (a Standard workflow deployed from lib/workflow's definition). */
  stateMachineArn: string;
  /**
   * How long after its lease was claimed an owner whose execution does not exist yet still
   * counts as alive: the claim comes before StartExecution, and a second resumer must not take
   * the run over in between. Longer than any function that claims and starts may run (the
   * sweeper's 5 minutes), shorter than the sweeper's idle threshold (10 minutes), so a claimer
   * that died before starting is taken over by the next sweep. @default 360000 (6 minutes)
   */
  startGraceMs?: number;
  /** @default Date.now */
  now?: () => number;
}

const START_GRACE_MS = 6 * 60_000;

/**
 * The SDK's Step Functions module, for its commands: imported by the first call that sends one, so
 * a bundle that holds this file reads the module only then (cdk/lambdaBundle.ts splits it out).
 */
const sfnSdk = () => import("@aws-sdk/client-sfn");

/** What Step Functions says about one execution. */
export interface ExecutionInfo {
  name: string;
  arn: string;
  /** UNKNOWN only if Step Functions left it out of an answer. */
  status: ExecutionStatus | "UNKNOWN";
  /** The execution's input, parsed; undefined if it could not be read. */
  input?: unknown;
  startDate?: Date;
  stopDate?: Date;
}

/** Identifies one generation of a run. */
export interface RunGeneration {
  runId: string;
  generation: number;
  /** When the run was created (see executionName). */
  createdAt?: string;
}

const parse = (text: string | undefined): unknown => {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

/**
 * Executes runs on AWS Step Functions: one execution per generation, named
 * after the run and generation, so a start that is retried or repeated never
 * starts a second execution. Only starts; the steps run in Lambda.
 */
export class SfnOrchestrator implements Orchestrator {
  constructor(private readonly options: SfnOrchestratorOptions) {}

  /** The SDK's module and the client, both ready to send. */
  private async sdk(): Promise<[typeof import("@aws-sdk/client-sfn"), SFNClient]> {
    const { client } = this.options;
    return Promise.all([sfnSdk(), typeof client === "function" ? client() : client]);
  }

  /** Start this generation's execution; an execution of that name with the same input counts as started. */
  async execute(input: ExecutionInput): Promise<void> {
    // The name its owner holds: the one leaseOwnerFor gave the claimer.
    const name = executionNameOf(input.owner) ?? executionName(input.runId, input.generation);
    const what = `start execution ${name} of run ${input.runId}`;
    const [{ StartExecutionCommand }, client] = await this.sdk();
    try {
      await client.send(
        new StartExecutionCommand({
          stateMachineArn: this.options.stateMachineArn,
          name,
          input: JSON.stringify(input),
        }),
      );
    } catch (error) {
      if (sfnErrorName(error) !== "ExecutionAlreadyExists") throw toRunlogError(error, what);
      // Step Functions refuses a name used before (even by a closed execution): same input means it is ours.
      const existing = await this.describeName(name);
      if (existing && isDeepStrictEqual(existing.input, input)) return;
      throw new ConflictError(`${what}: an execution of that name exists with a different input`, {
        cause: error,
        runId: input.runId,
        generation: input.generation,
      });
    }
  }

  leaseOwnerFor(run: RunGeneration): string {
    return ownerOf(executionName(run.runId, run.generation, run.createdAt));
  }

  /**
   * An execution is alive while Step Functions says RUNNING. One that does not
   * exist yet is alive for `startGraceMs` after its lease was claimed
   * (`claimedAt`), because its claimer starts it just after; later, or without
   * `claimedAt`, it is gone. Owners that are not executions count as alive,
   * so their lease time decides.
   */
  async isAlive(owner: string, claimedAt?: number): Promise<boolean> {
    const name = executionNameOf(owner);
    if (name === undefined) return true;
    const execution = await this.describeName(name);
    if (execution) return execution.status === "RUNNING";
    if (claimedAt === undefined) return false;
    const now = (this.options.now ?? Date.now)();
    return now - claimedAt < (this.options.startGraceMs ?? START_GRACE_MS);
  }

  /** Step Functions' own word on the execution an owner names; `none` for owners that are not executions. */
  async executionOf(owner: string): Promise<"none" | "running" | "ended"> {
    const name = executionNameOf(owner);
    if (name === undefined) return "none";
    const execution = await this.describeName(name);
    if (!execution) return "none";
    return execution.status === "RUNNING" ? "running" : "ended";
  }

  /** Stop the execution an owner names (a cancel); Lambda steps under way see the cancel and abort. */
  async stop(owner: string, reason: string): Promise<boolean> {
    const name = executionNameOf(owner);
    if (name === undefined) return false;
    return this.stopName(name, { error: "runlog.Cancelled", cause: reason });
  }

  /** The execution of a run's generation; undefined if it was never started. */
  describe(run: RunGeneration): Promise<ExecutionInfo | undefined> {
    return this.describeName(executionName(run.runId, run.generation, run.createdAt));
  }

  /** Stop a generation's execution if it runs; false when there was nothing running to stop. */
  async stopGeneration(run: RunGeneration, reason: { error: string; cause: string }): Promise<boolean> {
    return this.stopName(executionName(run.runId, run.generation, run.createdAt), reason);
  }

  private async stopName(name: string, reason: { error: string; cause: string }): Promise<boolean> {
    const current = await this.describeName(name);
    if (current?.status !== "RUNNING") return false;
    const [{ StopExecutionCommand }, client] = await this.sdk();
    try {
      await client.send(
        new StopExecutionCommand({ executionArn: current.arn, error: reason.error, cause: reason.cause }),
      );
      return true;
    } catch (error) {
      if (sfnErrorName(error) === "ExecutionDoesNotExist") return false;
      throw toRunlogError(error, `stop execution ${name}`);
    }
  }

  private async describeName(name: string): Promise<ExecutionInfo | undefined> {
    const arn = executionArn(this.options.stateMachineArn, name);
    const [{ DescribeExecutionCommand }, client] = await this.sdk();
    try {
      const out = await client.send(new DescribeExecutionCommand({ executionArn: arn }));
      const info: ExecutionInfo = { name, arn, status: out.status ?? "UNKNOWN" };
      const input = parse(out.input);
      if (input !== undefined) info.input = input;
      if (out.startDate) info.startDate = out.startDate;
      if (out.stopDate) info.stopDate = out.stopDate;
      return info;
    } catch (error) {
      if (sfnErrorName(error) === "ExecutionDoesNotExist") return undefined;
      throw toRunlogError(error, `describe execution ${name}`);
    }
  }
}
