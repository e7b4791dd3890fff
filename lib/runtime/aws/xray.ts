import { randomBytes } from "node:crypto";
import { createSocket, type Socket } from "node:dgram";
import { redact } from "../../core/redact.ts";

/**
 * X-Ray traces of the functions, written as segment documents to the X-Ray daemon that Lambda runs
 * beside a function with active tracing, without the X-Ray SDK: AWS put that SDK in maintenance on
 * 25 February 2026 (support ends 25 February 2027), and it was 10–14 ms of every bundle's import.
 *
 * Lambda records the invocation's segment itself; runlog adds a `## <step>` subsegment of it,
 * annotated with the step and the run's keys, and a subsegment of that for each AWS call (DynamoDB,
 * Step Functions …) whose request carries the trace header, so the service's own segment joins the trace.
 */

/** The trace an invocation belongs to: Lambda's `_X_AMZN_TRACE_ID` (`Root=…;Parent=…;Sampled=1`). */
export interface TraceHeader {
  root: string;
  /** The id of the segment Lambda records for this invocation: the parent of runlog's subsegments. */
  parent: string;
  sampled: boolean;
  /**
   * The header's other fields as they came (`;Lineage=…`), passed on with it: Lambda counts
   * `Lineage` to stop a function that invokes itself through a queue or a topic in a loop.
   */
  rest: string;
}

/** A segment a subsegment can hang from: the invocation's own (Lambda's), or a subsegment of it. */
export interface TraceParent {
  trace: TraceHeader;
  id: string;
}

/** The header's fields, or undefined for none, or one without a root or parent. */
export function parseTraceHeader(value: string | undefined): TraceHeader | undefined {
  if (!value) return undefined;
  const fields = value.split(";").map((field) => {
    const at = field.indexOf("=");
    return [field.slice(0, at).trim(), field.slice(at + 1).trim()] as const;
  });
  const known = new Map(fields);
  const root = known.get("Root");
  const parent = known.get("Parent");
  if (!root || !parent) return undefined;
  const rest = fields
    .filter(([key]) => key !== "Root" && key !== "Parent" && key !== "Sampled" && key !== "")
    .map(([key, field]) => `;${key}=${field}`)
    .join("");
  return { root, parent, sampled: known.get("Sampled") === "1", rest };
}

/** Where the daemon listens: `AWS_XRAY_DAEMON_ADDRESS`, `host:port` or `udp:host:port tcp:host:port`. */
export function daemonAddress(value: string | undefined): { host: string; port: number } | undefined {
  if (!value) return undefined;
  const entries = value.trim().split(/\s+/);
  const udp = entries.find((entry) => entry.startsWith("udp:"))?.slice(4) ?? entries[0]!;
  const at = udp.lastIndexOf(":");
  const port = Number(udp.slice(at + 1));
  if (at <= 0 || !Number.isInteger(port) || port <= 0 || port > 65_535) return undefined;
  return { host: udp.slice(0, at).replace(/^\[|\]$/g, ""), port };
}

/** One subsegment document (docs.aws.amazon.com/xray/latest/devguide/xray-api-segmentdocuments.html). */
interface SubsegmentDocument {
  id: string;
  name: string;
  trace_id: string;
  parent_id: string;
  type: "subsegment";
  start_time: number;
  end_time?: number;
  namespace?: "aws";
  annotations?: Record<string, string | number>;
  aws?: Record<string, string | number>;
  http?: { response: { status: number } };
  error?: true;
  fault?: true;
  throttle?: true;
  cause?: { exceptions: { id: string; type: string; message: string }[] };
}

/** How a subsegment ended badly: `error` a client's fault (4xx, an expected conflict), `fault` a server's or ours. */
export type Failure = "error" | "fault" | "throttle";

/** A subsegment being recorded, the parent of those opened under it; sent to the daemon when closed. */
export interface Subsegment extends TraceParent {
  annotate(key: string, value: string | number): void;
  /** Add what is known of the call once it has ended: the service's request id, the HTTP status … */
  describe(fields: Pick<SubsegmentDocument, "aws" | "http">): void;
  /** Flag the subsegment, with the error as its cause (its message redacted, as every error runlog shows). */
  fail(kind: Failure, error?: { name: string; message: string }): void;
  close(): void;
}

const HEADER = '{"format":"json","version":1}\n';
/** The most of an error's message a subsegment keeps. */
const MAX_MESSAGE = 2_000;
const seconds = () => (performance.timeOrigin + performance.now()) / 1000;
const newId = () => randomBytes(8).toString("hex");

let socket: Socket | undefined;
const sending = new Set<Promise<void>>();

/*
 * What Lambda tells of the invocation's trace is read when asked: the header changes every
 * invocation. Not configuration (lib/runtime/config.ts): Lambda's own variables, read here only.
 */

/** The segment Lambda records for this invocation, from its trace header; undefined outside a traced invocation. */
function invocationSegment(): TraceParent | undefined {
  const trace = parseTraceHeader(process.env._X_AMZN_TRACE_ID);
  return trace ? { trace, id: trace.parent } : undefined;
}

function send(document: SubsegmentDocument, daemon: { host: string; port: number }): void {
  if (!socket) {
    socket = createSocket(daemon.host.includes(":") ? "udp6" : "udp4");
    // A trace lost is not worth a step: a socket's error is dropped, as a failed send's (its callback's).
    socket.on("error", () => {});
    socket.unref();
  }
  const sent = new Promise<void>((resolve) => {
    socket!.send(HEADER + JSON.stringify(document), daemon.port, daemon.host, () => resolve());
  });
  sending.add(sent);
  void sent.then(() => sending.delete(sent));
}

/** Resolves once every document sent so far has left: awaited before a handler returns, as Lambda may then freeze it. */
export async function flushTraces(): Promise<void> {
  await Promise.all(sending);
}

/** The subsegment AWS calls made now are children of: the current step's, while one is open. */
let current: TraceParent | undefined;

/**
 * Open a subsegment of `parent` when its trace is sampled and the daemon's address known (in Lambda
 * with active tracing); undefined otherwise, and nothing sent.
 */
export function openSubsegment(name: string, parent: TraceParent, namespace?: "aws"): Subsegment | undefined {
  const { trace } = parent;
  const daemon = daemonAddress(process.env.AWS_XRAY_DAEMON_ADDRESS);
  if (!trace.sampled || !daemon) return undefined;
  const document: SubsegmentDocument = {
    id: newId(),
    name,
    trace_id: trace.root,
    parent_id: parent.id,
    type: "subsegment",
    start_time: seconds(),
    ...(namespace ? { namespace } : {}),
  };
  return {
    id: document.id,
    trace,
    annotate: (key, value) => {
      document.annotations = { ...document.annotations, [key.replace(/\W/g, "_")]: value };
    },
    describe: (fields) => Object.assign(document, fields),
    fail: (kind, error) => {
      document[kind] = true;
      // Throttling is an error of the caller's too, as X-Ray's console counts it.
      if (kind === "throttle") document.error = true;
      if (error) {
        // Cut short (the whole document must fit one datagram, 64 KB), but after redacting twice as
        // much: a credential across the cut is still found whole.
        const message = redact(error.message.slice(0, 2 * MAX_MESSAGE)).slice(0, MAX_MESSAGE);
        const exception = { id: newId(), type: error.name, message };
        document.cause = { exceptions: [exception] };
      }
    },
    close: () => {
      document.end_time = seconds();
      send(document, daemon);
    },
  };
}

/**
 * Open the `## <step>` subsegment of this invocation and make it the parent of the AWS calls made
 * until it closes; undefined (and the calls untraced) where tracing is off.
 */
export function openStepSubsegment(step: string): Subsegment | undefined {
  const invocation = invocationSegment();
  const subsegment = invocation && openSubsegment(`## ${step}`, invocation);
  if (!subsegment) return undefined;
  subsegment.annotate("step", step);
  current = subsegment;
  return {
    ...subsegment,
    close: () => {
      if (current === subsegment) current = undefined;
      subsegment.close();
    },
  };
}

/** The parent of an AWS call made now: the open step's subsegment, else the invocation's segment. */
export function callParent(): TraceParent | undefined {
  return current ?? invocationSegment();
}

/**
 * The trace header a traced call passes on (`X-Amzn-Trace-Id`), naming its subsegment as the parent
 * so the service's segment joins this trace, with the invocation's other fields kept.
 */
export function outgoingHeader(call: TraceParent): string {
  const { root, sampled, rest } = call.trace;
  return `Root=${root};Parent=${call.id};Sampled=${sampled ? 1 : 0}${rest}`;
}
