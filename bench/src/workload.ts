/**
 * The one workload every system runs: N turns, each a model response asking for one tool call and
 * that call's 2 KB result, then a final answer. The model is scripted and answers at once.
 */

export const TOOL_NAME = "fetch_page";
export const TOOL_RESULT_BYTES = 2048;
export const USER_INPUT = "Fetch the pages one by one, then say you are done.";
export const FINAL_ANSWER = "Done: every page was fetched.";

const WORDS = (
  "the of and to in is that for it as was with be by on not he this are or his from at which but " +
  "have an they you were her she there been one all we their has would when if so no will more " +
  "order invoice page table report weather result status account customer record value total"
).split(" ");

/**
 * The tool's answer to call i: exactly TOOL_RESULT_BYTES bytes of ASCII words drawn by a seeded
 * generator, so it compresses about as well as real text does (not as well as one letter repeated).
 */
export function toolResult(i: number): string {
  let seed = (i + 1) * 2654435761;
  const next = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed;
  };
  let text = `page ${i}:`;
  while (text.length < TOOL_RESULT_BYTES) text += ` ${WORDS[next() % WORDS.length]}${next() % 1000}`;
  return text.slice(0, TOOL_RESULT_BYTES);
}

export const callId = (turn: number): string => `call_${turn}`;
export const toolArgs = (turn: number): { page: number } => ({ page: turn });

/**
 * The bytes of the conversation after N turns, as JSON: the user's input, each model response (one
 * tool call) and each tool result. The baseline "bytes persisted after N turns" is compared with.
 */
export function rawMessageBytes(turns: number): number {
  const json = (value: unknown) => Buffer.byteLength(JSON.stringify(value), "utf8");
  let bytes = json({ role: "user", content: USER_INPUT });
  for (let k = 0; k < turns; k++) {
    bytes += json({
      role: "assistant",
      tool_calls: [{ id: callId(k), name: TOOL_NAME, arguments: JSON.stringify(toolArgs(k)) }],
    });
    bytes += json({ role: "tool", tool_call_id: callId(k), content: toolResult(k) });
  }
  return bytes;
}

/** What one child process reports for one system, mode and N. */
export interface ChildReport {
  system: string;
  mode: "run" | "resume";
  turns: number;
  /** Milliseconds of each turn, in order (run mode). */
  turnMs?: number[];
  totalMs?: number;
  /** Bytes written to durable storage over the run (each checkpoint/state/event write). */
  bytesWritten?: number;
  /** Bytes held by the store at the end, by the store's own measure. */
  bytesAtRest?: number;
  /** Size of the files on disk (database, WAL, log), when there are files. */
  bytesOnDisk?: number;
  /** ms from a fresh library instance to the next turn durably recorded. */
  resumeMs?: number;
  maxRssKb: number;
  notes?: string[];
}
