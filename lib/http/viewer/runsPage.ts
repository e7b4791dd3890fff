import type { Runlog } from "../../api/runlog.ts";
import { CorruptEventError } from "../../core/errors.ts";
import { RUN_STATUSES, type RunStatus } from "../../core/status.ts";
import type { RunHead } from "../../ports/eventStore.ts";
import { type Html, html, runHref } from "./html.ts";
import { page } from "./layout.ts";

/** Which runs the list shows. */
export interface RunsQuery {
  status?: RunStatus;
  /** Only the forks of this run. */
  parent?: string;
  cursor?: string;
  limit?: number;
}

/**
 * The model in charge of a run (changed by a fork, a resume or a transfer): its log's tail says it
 * (bounded reads, never the log); a log with a bad record shows the model it started with.
 */
async function modelInCharge(runlog: Runlog, runId: string): Promise<string> {
  try {
    return (await runlog.inCharge(runId)).model;
  } catch (error) {
    if (!(error instanceof CorruptEventError)) throw error;
    const first = await runlog.event(runId, 1);
    return first.type === "run_started" ? first.model : "";
  }
}

const row = (run: RunHead, model: string) => html`<tr data-testid="run-row" data-run-id="${run.runId}">
<th scope="row"><a href="${runHref(run.runId)}">${run.runId}</a></th>
<td><span class="status ${run.status}" data-testid="run-status">${run.status}</span></td>
<td>${run.agent}</td><td>${model}</td><td class="number">${run.lastSeq}</td>
<td><time datetime="${run.updatedAt}">${run.updatedAt.replace("T", " ").slice(0, 19)}</time></td>
</tr>`;

function filter({ status, parent }: RunsQuery): Html {
  const options = RUN_STATUSES.map(
    (value) => html`<option value="${value}"${value === status ? html` selected` : null}>${value}</option>`,
  );
  return html`<form method="get" action="/" class="filter" role="search" aria-label="Filter runs">
<label for="status-filter">Status</label>
<select id="status-filter" name="status" data-testid="status-filter"><option value="">any</option>${options}</select>
${parent === undefined ? null : html`<input type="hidden" name="parent" value="${parent}">`}<button type="submit">Filter</button>
</form>`;
}

function nextLink(query: RunsQuery, cursor: string | undefined): Html | null {
  if (cursor === undefined) return null;
  const params = new URLSearchParams();
  if (query.status) params.set("status", query.status);
  if (query.parent !== undefined) params.set("parent", query.parent);
  if (query.limit) params.set("limit", String(query.limit));
  params.set("cursor", cursor);
  return html`<nav aria-label="Pages"><a href="/?${params.toString()}" rel="next" data-testid="next-page">Next page</a></nav>`;
}

/** The page's heading: all runs, or the forks of one (linked). */
const heading = (parent: string | undefined) =>
  parent === undefined
    ? html`<h1>Runs</h1>`
    : html`<h1>Forks of run <a href="${runHref(parent)}"><code>${parent}</code></a></h1>`;

/**
 * `/`: runs by last activity, newest first, a page at a time (the list's cursor), filtered by
 * status; `?parent=ID` lists the forks of that run.
 */
export async function runsPage(runlog: Runlog, query: RunsQuery): Promise<Html> {
  const { runs, cursor } = await runlog.list(query);
  const models = await Promise.all(runs.map((run) => modelInCharge(runlog, run.runId)));
  const table =
    runs.length === 0
      ? html`<p data-testid="no-runs">No ${query.parent === undefined ? "runs" : "forks"}${query.status ? ` with status ${query.status}` : ""}${query.cursor ? " on this page" : ""}.</p>`
      : html`<div class="scroll"><table data-testid="runs">
<caption>Runs, newest activity first</caption>
<thead><tr><th scope="col">Run</th><th scope="col">Status</th><th scope="col">Agent</th><th scope="col">Model</th><th scope="col">Events</th><th scope="col">Last activity (UTC)</th></tr></thead>
<tbody>${runs.map((run, i) => row(run, models[i] ?? ""))}</tbody>
</table></div>`;
  return page(
    query.parent === undefined ? "Runs" : `Forks of ${query.parent}`,
    html`<main>${heading(query.parent)}${filter(query)}${table}${nextLink(query, cursor)}</main>`,
  );
}
