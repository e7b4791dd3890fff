import type { EventsPage } from "../../api/eventPage.ts";
import type { Runlog } from "../../api/runlog.ts";
import { eventListing } from "../eventListing.ts";
import { eventItem } from "./eventItem.ts";
import { type Html, html, runHref, segment } from "./html.ts";
import { page } from "./layout.ts";
import { about } from "./runAbout.ts";
import { runState } from "./runState.ts";

/** Events a timeline page (or a fragment of new ones) lists at most. */
export const TIMELINE_LIMIT = 200;

/** A page of the run's log, as GET /runs/{id}/events reads it (a too-big event listed truncated). */
export function timelinePage(runlog: Runlog, runId: string, after: number): Promise<EventsPage> {
  return runlog.eventPage(runId, {
    after,
    limit: TIMELINE_LIMIT,
    ...eventListing(runId, `/runs/${segment(runId)}/events`),
  });
}

/** The entries of a page of the timeline, as the page lists them and GET /runs/{id}/view/events answers. */
export const timelineItems = (runId: string, events: EventsPage["events"]): Html =>
  html`${events.map((event) => eventItem(runId, event))}`;

function pager(runId: string, after: number, next: number | undefined): Html | null {
  if (after === 0 && next === undefined) return null;
  return html`<nav aria-label="Timeline pages" class="pager">
${after > 0 ? html`<a href="${runHref(runId)}" data-testid="first-events">From the first event</a>` : null}
${next === undefined ? null : html`<a href="${runHref(runId)}?after=${next}" rel="next" data-testid="later-events">Later events (after #${next})</a>`}
</nav>`;
}

/**
 * `/runs/{id}/view`: the run's timeline from event `after` + 1, a page of it, with its state and
 * actions. Live updates (script/live.ts) are on only when the page reaches the log's end.
 */
export async function runPage(runlog: Runlog, runId: string, after: number): Promise<Html> {
  const first = await runlog.event(runId, 1);
  const { events, next } = await timelinePage(runlog, runId, after);
  const lastSeq = events.at(-1)?.seq ?? after;
  const [state, facts] = await Promise.all([runState(runlog, runId, lastSeq), about(runlog, runId, first)]);
  const live = next === undefined;
  return page(
    `Run ${runId}`,
    html`<main data-run-id="${runId}" data-last-seq="${lastSeq}" data-live="${live}">
<nav aria-label="Breadcrumb"><a href="/">All runs</a></nav>
<h1>Run <code>${runId}</code></h1>
${facts}
<section aria-labelledby="state-heading" class="state"><h2 id="state-heading">State</h2>
<div id="run-state" data-testid="run-state">${state}</div>
<div id="action-message" data-testid="action-message" aria-live="polite"></div>
</section>
<section aria-labelledby="timeline-heading"><h2 id="timeline-heading">Timeline</h2>
<p id="live-status" data-testid="live-status" aria-live="polite">${live ? "" : "Live updates are off on an earlier page of the log."}</p>
${pager(runId, after, next)}
<ol id="timeline" class="timeline" data-testid="timeline">${timelineItems(runId, events)}</ol>
<section id="streaming" data-testid="streaming" class="streaming" aria-labelledby="streaming-heading" hidden>
<h3 id="streaming-heading">Streaming…</h3><p class="streaming-text" data-testid="streaming-text"></p>
</section>
</section>
</main>`,
  );
}
