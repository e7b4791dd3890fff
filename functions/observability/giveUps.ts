import type { EventStore, RunHead } from "../../lib/ports/eventStore.ts";
import type { StepDeps } from "../../lib/steps/deps.ts";

/**
 * A head the sweep already rested as given up: `interrupted` with no lease is where giving up
 * leaves a run, and what resting it again leaves unchanged (sweep.ts's `rest`). The sweeper lists
 * `interrupted` heads too (AWS_SWEEP), so it meets such a run, and gives up on it, every sweep
 * (and twice in the sweep that gives up: listed `running`, then again among the `interrupted`).
 */
const restingAsGivenUp = (head: RunHead) => head.status === "interrupted" && !head.lease;

/**
 * The sweep's deps with its observer told of a give-up only the first time: once per run, not
 * once per sweep that meets it again (which kept the give-up alarm red until someone resumed it).
 * It remembers how each head looked when listed, before the sweep touched it. A run given up
 * anew after a person resumed it is listed `running` (or holding a lease) and counts again.
 *
 * This belongs in the sweep's report (lib/steps/sweep.ts could tell `gaveUp` only when `rest`
 * changed the head); until it does, the function tells the two apart by the listed head.
 */
export function countingNewGiveUps<D extends StepDeps>(deps: D): D {
  const gaveUp = deps.observer?.gaveUp;
  if (!deps.observer || !gaveUp) return deps;
  const already = new Set<string>();
  const listRuns: EventStore["listRuns"] = async (options) => {
    const page = await deps.store.listRuns(options);
    for (const head of page.runs) {
      if (restingAsGivenUp(head)) already.add(head.runId);
      else already.delete(head.runId);
    }
    return page;
  };
  const store = new Proxy(deps.store, {
    get: (target, key) => {
      if (key === "listRuns") return listRuns;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  const observer = {
    ...deps.observer,
    gaveUp: (runId: string, resumes: number) => {
      if (!already.has(runId)) gaveUp.call(deps.observer, runId, resumes);
    },
  };
  return { ...deps, store, observer };
}
