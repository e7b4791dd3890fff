import type { RunEvent } from "../core/events.ts";
import type { LogFacts, LogView } from "../core/log.ts";
import { appendNext, assertCurrent, assertNotStopped, type Decision } from "./appendNext.ts";
import type { StepDeps } from "./deps.ts";
import { currentRun, loadRun, viewFacts } from "./logReads.ts";

/** How a writer reads the log: `fresh` after losing a seq race, when a cached view is known stale. */
export type ViewReader = (fresh: boolean) => Promise<LogView>;

/** How often a writer tries again after losing a seq race while the log shows no new event. */
const MAX_STALLED_CONFLICTS = 32;

/**
 * The one way steps write: read the log (logReads.ts), decide on it, append at its end
 * (appendNext.ts). Losing the seq race reads again and decides again, so a writer either
 * converges on what someone else already wrote or stops because a newer generation took over.
 * `read` gives the view to decide on (default: the whole log, cached where trusted).
 */
export async function writeNext<T>(
  deps: StepDeps,
  runId: string,
  generation: number | "any",
  decide: (events: readonly RunEvent[], facts: LogFacts) => Decision<T>,
  read: ViewReader = async (fresh) => ({
    events: fresh ? await loadRun(deps, runId) : await currentRun(deps, runId),
  }),
): Promise<T> {
  for (let seen = 0, stalled = 0, fresh = false; ; fresh = true) {
    const view = await read(fresh);
    const last = view.events.at(-1)?.seq ?? 0;
    // Losing the race to a writer whose event then shows up is progress (many siblings finishing
    // at once): try again for as long as the log grows, and only a bounded number of times when not.
    stalled = last > seen ? 0 : stalled + 1;
    seen = last;
    const facts = viewFacts(deps, runId, view);
    // "any": writers outside an execution (decisions, cancel) that judge the log themselves.
    if (generation !== "any") assertCurrent(runId, facts, generation);
    const decision = decide(view.events, facts);
    if (generation !== "any" && "append" in decision && decision.append.type !== "resumed") {
      assertNotStopped(runId, facts, generation);
    }
    const written = await appendNext(deps, runId, view, facts, decision);
    if (written.kind !== "lost") return written.value;
    if (stalled >= MAX_STALLED_CONFLICTS) throw written.error;
    deps.observer?.lostRace?.(runId, written.seq);
  }
}
