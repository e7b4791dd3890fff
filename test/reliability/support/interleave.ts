import type { NewEvent, RunStarted } from "../../../lib/core/events.ts";
import { stamp } from "../../../lib/core/storedEvents.ts";
import type { EventStore } from "../../../lib/ports/eventStore.ts";
import type { StepDeps } from "../../../lib/steps/deps.ts";
import { cleanup, testEnv } from "../../support/cli.ts";
import { connectStore } from "../../support/store.ts";
import { harness, hooked } from "./harness.ts";
import { prng, TurnScheduler } from "./turns.ts";

/** The local store of one data dir, and fresh runs whose writers take turns at it by a seed. */
export class Interleaving {
  private runs = 0;

  private constructor(
    readonly dir: string,
    readonly store: EventStore,
    private readonly disconnect: () => Promise<void>,
  ) {}

  /** Open the local store of `dir`. */
  static async open(dir: string): Promise<Interleaving> {
    const { store, close } = await connectStore({ dataDir: dir, env: testEnv() });
    return new Interleaving(dir, store, close);
  }

  /** A fresh run (run_started, then `rest`), and one step-deps per writer whose store calls take turns. */
  async run(seed: number, writers: number, model = "scripted:demo", rest: NewEvent[] = []) {
    const runId = `interleave-${++this.runs}`;
    const at = new Date();
    const first = stamp({ type: "run_started", runId, agent: "demo", model, input: "go" }, 1, at);
    await this.store.createRun(first as RunStarted);
    for (const [i, event] of rest.entries()) await this.store.append(runId, stamp(event, i + 2, at));
    const turns = new TurnScheduler(prng(seed), writers);
    const deps = Array.from(
      { length: writers },
      (_, w): StepDeps =>
        harness(
          hooked(this.store, (method) => turns.turn(w, method)),
          this.dir,
        ).deps,
    );
    return { runId, turns, deps };
  }

  async close(): Promise<void> {
    await this.disconnect();
    await cleanup(this.dir);
  }
}
