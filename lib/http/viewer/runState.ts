import type { Runlog } from "../../api/runlog.ts";
import { resumePointLines } from "../../api/views.ts";
import type { JsonValue } from "../../core/structuredOutput.ts";
import { actions } from "./actions.ts";
import { clipped } from "./fold.ts";
import { type Html, html, runHref } from "./html.ts";

/**
 * The part of a run's page that changes with its status: the status, the final output, the resume
 * point in words (as `runlog resume-point` prints it) and the actions that apply. The page's script
 * fetches it again (GET /runs/{id}/view/state) when the status changes.
 */
export async function runState(runlog: Runlog, runId: string, lastSeq: number): Promise<Html> {
  const outcome = await runlog.outcome<JsonValue>(runId);
  const point = await runlog.resumePoint(runId);
  const text =
    outcome.output === null || typeof outcome.output === "string"
      ? outcome.output
      : JSON.stringify(outcome.output, null, 2);
  const output =
    text === null
      ? outcome.invalidOutput
        ? html`<h3>Rejected output</h3><p>${outcome.invalidOutput.problems}</p><pre class="payload" data-testid="output">${clipped(outcome.invalidOutput.text)}</pre>`
        : null
      : html`<h3>Output</h3><pre class="payload" data-testid="output">${clipped(text)}</pre>`;
  // A parent waiting on its sub-agents: which calls, and which child runs they wait for.
  const children = "waitingChildren" in point ? (point.waitingChildren ?? []) : [];
  const waiting =
    children.length === 0
      ? null
      : html`<h3>Waiting for</h3><ul class="calls" data-testid="waiting-for">${children.map(
          ({ call, childRunId }) =>
            html`<li>sub-agent run <a href="${runHref(childRunId)}" data-testid="waiting-child">${childRunId}</a> (call ${call.name}, ${call.id})</li>`,
        )}</ul>`;
  return html`<p>Status: <strong data-testid="run-status" data-status="${outcome.status}">${outcome.status}</strong></p>
${waiting}
${output}
<h3 id="resume-point-heading">Resume point</h3>
<pre class="resume-point" data-testid="resume-point" aria-labelledby="resume-point-heading">${resumePointLines(point).join("\n")}</pre>
<h3>Actions</h3>
<div class="actions">${actions({ runId, status: outcome.status, point, lastSeq })}</div>`;
}
