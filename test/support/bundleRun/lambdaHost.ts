import { type ChildProcess, fork } from "node:child_process";
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import type { HandlerName } from "../../../cdk/runlogFunction.ts";
import type { FunctionSpec } from "./template.ts";

const WORKER = join(import.meta.dirname, "lambdaWorker.ts");

/** A failed invocation as Lambda reports it: Step Functions' Error is `errorType`. */
export class LambdaInvocationError extends Error {
  constructor(
    readonly fn: string,
    readonly errorType: string,
    readonly errorMessage: string,
    readonly trace: string[] = [],
  ) {
    // Step Functions' Cause for a Lambda error is the error payload as JSON.
    super(JSON.stringify({ errorType, errorMessage, trace }));
    this.name = errorType;
  }
}

interface Answer {
  ok: boolean;
  value?: unknown;
  errorType?: string;
  errorMessage?: string;
  trace?: string[];
}

/** One instance of a function: a child process serving one invocation at a time. */
class Instance {
  readonly process: ChildProcess;
  busy = false;
  dead = false;
  private pending: { id: string; settle: (answer: Answer) => void } | undefined;

  constructor(spec: FunctionSpec, env: NodeJS.ProcessEnv, output: (line: string) => void) {
    this.process = fork(WORKER, [], {
      env,
      cwd: spec.taskRoot,
      // No loader, no flags of the test runner: the bundle runs on plain Node, as in Lambda.
      execArgv: [],
      stdio: ["ignore", "pipe", "pipe", "ipc"],
    });
    for (const stream of [this.process.stdout, this.process.stderr]) {
      stream?.setEncoding("utf8").on("data", (text: string) => {
        for (const line of text.split("\n")) if (line) output(line);
      });
    }
    this.process.on("message", (message: Answer & { id: string }) => {
      if (this.pending?.id !== message.id) return;
      const { settle } = this.pending;
      this.pending = undefined;
      settle(message);
    });
    this.process.on("exit", (code, signal) => {
      this.dead = true;
      const pending = this.pending;
      this.pending = undefined;
      pending?.settle({
        ok: false,
        errorType: "Runtime.ExitError",
        errorMessage: `RequestId: ${pending.id} Error: Runtime exited with ${signal ? `signal: ${signal}` : `error: exit status ${code}`}`,
      });
    });
  }

  invoke(id: string, message: Record<string, unknown>, timeoutMs: number): Promise<Answer> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pending = undefined;
        this.process.kill("SIGKILL");
        resolve({
          ok: false,
          errorType: "Sandbox.Timedout",
          errorMessage: `RequestId: ${id} Error: Task timed out after ${timeoutMs / 1000} seconds`,
        });
      }, timeoutMs);
      this.pending = {
        id,
        settle: (answer) => {
          clearTimeout(timer);
          resolve(answer);
        },
      };
      this.process.send(message);
    });
  }
}

/**
 * Runs each function's bundle as Lambda would: instances are child processes with the
 * function's own environment, one invocation at a time each; a busy function gets another
 * instance (a cold start), an instance that died or timed out is replaced on the next call.
 */
export class LambdaHost {
  private readonly instances = new Map<string, Instance[]>();
  /** What each function's instances wrote (Lambda's CloudWatch logs), by function. */
  readonly logs = new Map<string, string[]>();
  /** Cold starts per function. */
  readonly coldStarts = new Map<string, number>();
  /** The most invocations of each function that were under way at once. */
  readonly peakConcurrency = new Map<string, number>();
  private readonly underWay = new Map<string, number>();
  /** Every invocation: the ARN it named, the function and the version that served it, its event. */
  readonly invocations: { arn: string; fn: HandlerName; version: string; event: unknown }[] = [];
  /** Each deployment's functions, the newest first. */
  private readonly deployments: (readonly FunctionSpec[])[];

  constructor(
    specs: readonly FunctionSpec[],
    /** The process environment of an instance of the function: its template's plus Lambda's and the endpoints. */
    private readonly environment: (spec: FunctionSpec) => NodeJS.ProcessEnv,
  ) {
    this.deployments = [specs];
  }

  /** A deploy: the functions' new code. A name or unqualified ARN now means it; a version's ARN still means that version. */
  deploy(specs: readonly FunctionSpec[]): void {
    this.deployments.unshift(specs);
  }

  spec(fnOrArn: string): FunctionSpec {
    const versioned = this.deployments.flat().find((s) => s.versionArn === fnOrArn);
    const spec = versioned ?? this.deployments[0]!.find((s) => s.name === fnOrArn || s.arn === fnOrArn);
    if (!spec) throw new Error(`no function ${fnOrArn} in the template`);
    return spec;
  }

  /** Invoke a function (by handler name or ARN); resolves with its result, rejects with LambdaInvocationError. */
  async invoke(fnOrArn: string, event: unknown): Promise<unknown> {
    const spec = this.spec(fnOrArn);
    this.invocations.push({ arn: fnOrArn, fn: spec.name, version: spec.version, event });
    const instance = this.idleInstance(spec);
    instance.busy = true;
    const now = (this.underWay.get(spec.name) ?? 0) + 1;
    this.underWay.set(spec.name, now);
    this.peakConcurrency.set(spec.name, Math.max(now, this.peakConcurrency.get(spec.name) ?? 0));
    const id = randomUUID();
    const timeoutMs = spec.timeoutSeconds * 1000;
    try {
      const answer = await instance.invoke(
        id,
        {
          type: "invoke",
          id,
          event: JSON.parse(JSON.stringify(event)),
          context: {
            awsRequestId: id,
            deadlineMs: Date.now() + timeoutMs,
            functionName: spec.functionName,
            functionVersion: spec.version,
            invokedFunctionArn: fnOrArn.startsWith("arn:") ? fnOrArn : spec.arn,
            memoryLimitInMB: String(spec.memorySize),
            logGroupName: `/aws/lambda/${spec.functionName}`,
            logStreamName: `local/[${spec.version}]${instance.process.pid}`,
            traceId: `Root=1-${Math.floor(Date.now() / 1000).toString(16)}-${id.replaceAll("-", "").slice(0, 24)};Sampled=1`,
          },
        },
        timeoutMs,
      );
      if (answer.ok) return answer.value;
      throw new LambdaInvocationError(
        spec.name,
        answer.errorType ?? "Error",
        answer.errorMessage ?? "",
        answer.trace,
      );
    } finally {
      instance.busy = false;
      this.underWay.set(spec.name, (this.underWay.get(spec.name) ?? 1) - 1);
    }
  }

  private idleInstance(spec: FunctionSpec): Instance {
    // One pool per function and version: a version's instances run its own bundle.
    const key = `${spec.name}:${spec.version}:${spec.taskRoot}`;
    const live = (this.instances.get(key) ?? []).filter((i) => !i.dead && i.process.exitCode === null);
    this.instances.set(key, live);
    const idle = live.find((i) => !i.busy);
    if (idle) return idle;
    const lines = this.logs.get(spec.name) ?? [];
    this.logs.set(spec.name, lines);
    const instance = new Instance(spec, this.environment(spec), (line) => lines.push(line));
    live.push(instance);
    this.coldStarts.set(spec.name, (this.coldStarts.get(spec.name) ?? 0) + 1);
    return instance;
  }

  /** End every instance. */
  async stop(): Promise<void> {
    const all = [...this.instances.values()]
      .flat()
      .filter((i) => i.process.exitCode === null && i.process.signalCode === null);
    await Promise.all(
      all.map(
        (i) =>
          new Promise<void>((resolve) => {
            i.process.once("exit", () => resolve());
            i.process.kill("SIGKILL");
          }),
      ),
    );
    this.instances.clear();
  }
}
