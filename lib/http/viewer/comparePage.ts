import type { RunComparison } from "../../api/replayCompare.ts";
import type { Runlog } from "../../api/runlog.ts";
import type { CallKey } from "../../core/replay.ts";
import { type Difference, describeDifference, type RunSummary } from "../../core/replayDiff.ts";
import { clipped } from "./fold.ts";
import { type Html, html, runHref, segment } from "./html.ts";
import { page } from "./layout.ts";

/** Where the comparison of a run with its replay (or any other run) is. */
export const compareHref = (runId: string, replayRunId: string): string =>
  `/runs/${segment(runId)}/compare?with=${encodeURIComponent(replayRunId)}`;

/** The rows of the side-by-side table, each with the kinds of difference it shows. */
type Row = "status" | "answer" | "calls" | "turns";
const ROW_OF: Record<Difference["what"], Row> = {
  status: "status",
  answer: "answer",
  turns: "turns",
  tool_call_added: "calls",
  tool_call_removed: "calls",
  tool_call_arguments: "calls",
  tool_call_outcome: "calls",
};

type Side = "recorded" | "replayed";

/** The call a difference names on one side (a removed call has none on the replayed side). */
const callOn = (difference: Difference, side: Side): CallKey | null =>
  ROW_OF[difference.what] === "calls" ? (difference[side] as CallKey | null) : null;

const sameCall = (a: CallKey, b: CallKey) => a.name === b.name && a.arguments === b.arguments;

function calls(summary: RunSummary, marked: CallKey | null): Html {
  if (summary.toolCalls.length === 0) return html`<p>none</p>`;
  // The first difference's call, where it is on this side: the first call equal to it.
  const at = marked === null ? -1 : summary.toolCalls.findIndex((call) => sameCall(call, marked));
  const items = summary.toolCalls.map(
    (call, i) =>
      html`<li${i === at ? html` class="first-difference" data-testid="first-difference-call"` : null}><code>${call.name}</code> <code class="arguments">${clipped(call.arguments, 500)}</code></li>`,
  );
  return html`<ol class="calls">${items}</ol>`;
}

const money = (usd: number | undefined) => (usd === undefined ? "not priced" : `$${usd.toFixed(4)}`);

/** One side's cell of a row. */
function cell(row: Row | "tokens" | "cost", summary: RunSummary, first: Difference | undefined, side: Side) {
  switch (row) {
    case "status":
      return html`<span class="status ${summary.status}">${summary.status}</span>`;
    case "answer":
      return summary.answer === null
        ? html`<p>no answer</p>`
        : html`<pre class="payload">${clipped(summary.answer)}</pre>`;
    case "calls":
      return calls(summary, first === undefined ? null : callOn(first, side));
    case "turns":
      return String(summary.turns);
    case "tokens":
      return String(summary.tokens);
    case "cost":
      return money(summary.costUsd);
  }
}

const LABELS = {
  status: "Status",
  answer: "Final answer",
  calls: "Tool calls (name, arguments)",
  turns: "Turns",
  tokens: "Tokens",
  cost: "Cost",
} as const;

function table(comparison: RunComparison, runId: string, replayRunId: string): Html {
  const { recorded, replayed } = comparison.summaries;
  const first = comparison.differences[0];
  const firstRow = first === undefined ? undefined : ROW_OF[first.what];
  const changed = new Set(comparison.differences.map((d) => ROW_OF[d.what]));
  const rows = (Object.keys(LABELS) as (keyof typeof LABELS)[]).map((row) => {
    const classes = [row === firstRow ? "first-difference" : "", changed.has(row as Row) ? "changed" : ""]
      .filter(Boolean)
      .join(" ");
    return html`<tr data-row="${row}"${classes ? html` class="${classes}"` : null}${row === firstRow ? html` data-testid="first-difference-row"` : null}>
<th scope="row">${LABELS[row]}${row === firstRow ? html` <span class="badge">first difference</span>` : changed.has(row as Row) ? html` <span class="badge">differs</span>` : null}</th>
<td data-side="recorded">${cell(row, recorded, first, "recorded")}</td>
<td data-side="replayed">${cell(row, replayed, first, "replayed")}</td>
</tr>`;
  });
  return html`<div class="scroll"><table class="compare" data-testid="comparison">
<caption>The recorded run and its replay, side by side</caption>
<thead><tr><td></td><th scope="col">Recorded: <a href="${runHref(runId)}" data-testid="recorded-run">${runId}</a></th><th scope="col">Replay: <a href="${runHref(replayRunId)}" data-testid="replay-run">${replayRunId}</a></th></tr></thead>
<tbody>${rows}</tbody>
</table></div>`;
}

function differences(list: readonly Difference[]): Html {
  if (list.length === 0)
    return html`<p data-testid="no-differences">No differences: the replay did what the recorded run did.</p>`;
  const items = list.map(
    (difference, i) =>
      html`<li data-what="${difference.what}"${i === 0 ? html` class="first-difference"` : null}>${describeDifference(difference)}</li>`,
  );
  return html`<ol class="differences" data-testid="differences">${items}</ol>`;
}

/**
 * `/runs/{id}/compare?with={replayRunId}`: a recorded run and its replay side by side (status,
 * answer, tool calls, turns, tokens, cost), the first difference highlighted and all listed, as
 * Runlog.compare (lib/api/replayCompare.ts) finds them.
 */
export async function comparePage(runlog: Runlog, runId: string, replayRunId: string): Promise<Html> {
  const comparison = await runlog.compare(runId, replayRunId);
  const count = comparison.differences.length;
  return page(
    `Compare ${runId} with ${replayRunId}`,
    html`<main data-testid="compare">
<nav aria-label="Breadcrumb"><a href="/">All runs</a> › <a href="${runHref(runId)}">${runId}</a></nav>
<h1>Run <code>${runId}</code> and its replay <code>${replayRunId}</code></h1>
<section aria-labelledby="differences-heading"><h2 id="differences-heading">${count === 0 ? "No differences" : `${count} difference${count === 1 ? "" : "s"}`}</h2>
${differences(comparison.differences)}
</section>
<section aria-labelledby="side-by-side-heading"><h2 id="side-by-side-heading">Side by side</h2>
${table(comparison, runId, replayRunId)}
</section>
</main>`,
  );
}
