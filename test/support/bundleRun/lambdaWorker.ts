/**
 * One Lambda instance: this process. It loads the function's bundle from LAMBDA_TASK_ROOT as
 * Lambda's Node.js runtime does (`_HANDLER` = "<file>.<export>", the file .mjs, .js or .cjs),
 * then serves the invocations its host sends over IPC, one at a time, with a Lambda context.
 * It imports nothing of runlog's: what runs is the bundle alone.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

interface Invoke {
  type: "invoke";
  id: string;
  event: unknown;
  context: {
    awsRequestId: string;
    deadlineMs: number;
    functionName: string;
    functionVersion: string;
    invokedFunctionArn: string;
    memoryLimitInMB: string;
    logGroupName: string;
    logStreamName: string;
    traceId: string;
  };
}

type Handler = (event: unknown, context: unknown) => Promise<unknown>;

/** What Lambda reports for a failed invocation: the error's name as errorType. */
const failure = (error: unknown, fallbackType: string) => {
  const e = error instanceof Error ? error : new Error(String(error));
  return {
    ok: false,
    errorType: e.name || fallbackType,
    errorMessage: e.message,
    trace: (e.stack ?? "").split("\n"),
  };
};

async function loadHandler(): Promise<Handler> {
  const root = process.env.LAMBDA_TASK_ROOT ?? "";
  const spec = process.env._HANDLER ?? "";
  const dot = spec.lastIndexOf(".");
  const [base, name] = [spec.slice(0, dot), spec.slice(dot + 1)];
  const file = [".mjs", ".js", ".cjs"].map((ext) => join(root, base + ext)).find((path) => existsSync(path));
  if (!file)
    throw Object.assign(new Error(`Cannot find module '${base}'`), { name: "Runtime.ImportModuleError" });
  let module: Record<string, unknown>;
  try {
    module = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (error) {
    throw Object.assign(new Error(`Error: ${(error as Error).message}`, { cause: error }), {
      name: "Runtime.ImportModuleError",
    });
  }
  const handler = module[name];
  if (typeof handler !== "function") {
    throw Object.assign(new Error(`${spec} is undefined or not exported`), {
      name: "Runtime.HandlerNotFound",
    });
  }
  return handler as Handler;
}

const loading = loadHandler();
// An init failure is reported on the first invocation, as Lambda does; keep it from crashing the process first.
loading.catch(() => {});

process.on("message", (message: Invoke) => {
  void serve(message).then((answer) => process.send?.({ type: "result", id: message.id, ...answer }));
});

async function serve({ event, context }: Invoke): Promise<Record<string, unknown>> {
  let handler: Handler;
  try {
    handler = await loading;
  } catch (error) {
    return failure(error, "Runtime.ImportModuleError");
  }
  process.env._X_AMZN_TRACE_ID = context.traceId;
  const lambdaContext = {
    ...context,
    callbackWaitsForEmptyEventLoop: true,
    getRemainingTimeInMillis: () => Math.max(0, context.deadlineMs - Date.now()),
  };
  try {
    // Lambda sends the result as JSON: what cannot be serialized does not reach the caller.
    const value = await handler(event, lambdaContext);
    return { ok: true, value: value === undefined ? null : JSON.parse(JSON.stringify(value)) };
  } catch (error) {
    return failure(error, "Error");
  }
}
