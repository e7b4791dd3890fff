import { RunCancelledError, StaleError } from "../core/errors.ts";
import type { LogFacts } from "../core/log.ts";
import type { StepDeps, StepInput } from "./deps.ts";
import { writeNext } from "./writeNext.ts";

/** How old the unsaved text of a streaming response may grow before it is saved. */
export const CHECKPOINT_INTERVAL_MS = 2_000;
/** How much unsaved text of a streaming response is saved at once, whatever its age. */
export const CHECKPOINT_CHARS = 4_096;

export interface CheckpointOptions {
  /** Save `text` (what came since the last save); false: the log moved on, save nothing more. */
  write: (text: string) => Promise<boolean>;
  /** Epoch ms: the step's clock. */
  now: () => number;
  /** Run `fn` in `ms`; returns how to cancel it. @default setTimeout, unref'd */
  schedule?: (ms: number, fn: () => void) => () => void;
  /** A save that failed: its text is kept and saved with the next. */
  failed?: (error: unknown) => void;
  /** @default CHECKPOINT_INTERVAL_MS */
  intervalMs?: number;
  /** @default CHECKPOINT_CHARS */
  maxChars?: number;
}

const timer = (ms: number, fn: () => void) => {
  const handle = setTimeout(fn, ms);
  handle.unref?.();
  return () => clearTimeout(handle);
};

/**
 * Saves a streaming response's text as it arrives: `add` (on the stream's hot path) only keeps
 * the delta and arms a timer; saves run one at a time, in order, off that path, whenever the
 * unsaved text is `intervalMs` past the previous save or `maxChars` long. A failed save keeps
 * its text for the next one (the saved pieces stay contiguous) and never fails the stream.
 */
export class ResponseCheckpoints {
  private pending = "";
  private lastSave: number;
  private cancelTimer: (() => void) | undefined;
  private writing: Promise<void> | undefined;
  private again = false;
  private stopped = false;

  constructor(private readonly options: CheckpointOptions) {
    this.lastSave = options.now();
  }

  /** Take a streamed delta. Never waits and never throws. */
  add(delta: string): void {
    if (this.stopped || delta === "") return;
    this.pending += delta;
    if (this.pending.length >= (this.options.maxChars ?? CHECKPOINT_CHARS)) this.save();
    else this.arm();
  }

  /** Stop taking text and wait for the save under way (the response that follows supersedes the rest). */
  async settle(): Promise<void> {
    this.stopped = true;
    this.disarm();
    await this.writing;
  }

  private arm(): void {
    if (this.cancelTimer || this.pending === "" || this.stopped) return;
    const due = this.lastSave + (this.options.intervalMs ?? CHECKPOINT_INTERVAL_MS) - this.options.now();
    this.cancelTimer = (this.options.schedule ?? timer)(Math.max(0, due), () => {
      this.cancelTimer = undefined;
      this.save();
    });
  }

  private disarm(): void {
    this.cancelTimer?.();
    this.cancelTimer = undefined;
  }

  private save(): void {
    this.disarm();
    this.lastSave = this.options.now();
    if (this.writing) {
      this.again = true;
      return;
    }
    this.writing = this.drain();
  }

  private async drain(): Promise<void> {
    do {
      this.again = false;
      const text = this.pending;
      this.pending = "";
      if (text === "") break;
      try {
        if (!(await this.options.write(text))) this.stopped = true;
      } catch (error) {
        this.pending = text + this.pending;
        this.options.failed?.(error);
      }
    } while (this.again && !this.stopped);
    this.writing = undefined;
    this.arm();
  }
}

/**
 * Checkpoints of the response a CallModel step is streaming, written under the seq lock like every
 * event: a `response_progress` appended only while the log still stands where the call began (no
 * response, failure or input since); a newer generation or a cancel ends them quietly.
 */
export function stepCheckpoints(deps: StepDeps, input: StepInput, facts: LogFacts): ResponseCheckpoints {
  const write = (text: string) =>
    writeNext(deps, input.runId, input.generation, (_events, latest) => {
      const moved =
        latest.modelTurns !== facts.modelTurns || latest.last?.seq !== facts.last?.seq || latest.exhausted;
      return moved ? { done: false } : { append: { type: "response_progress", text }, result: () => true };
    }).catch((error: unknown) => {
      if (error instanceof StaleError || error instanceof RunCancelledError) return false;
      throw error;
    });
  return new ResponseCheckpoints({
    write,
    now: () => deps.clock.now().getTime(),
    failed: (error) => deps.observer?.checkpointFailed?.(input.runId, error),
  });
}
