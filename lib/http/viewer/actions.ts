import type { ResumePointAnswer } from "../../api/runlog.ts";
import type { ToolCall } from "../../core/eventFields.ts";
import type { RunStatus } from "../../core/status.ts";
import { callLink } from "./eventItem.ts";
import { clipped } from "./fold.ts";
import { type Html, html, segment } from "./html.ts";

/** What the actions of a run depend on. */
export interface ActionFacts {
  runId: string;
  status: RunStatus;
  point: ResumePointAnswer;
  lastSeq: number;
}

/** Statuses a new message cannot continue (lib/steps/generation/plan.ts refuses them) or must wait for. */
const NO_MESSAGES = new Set<RunStatus>(["running", "cancelled", "malformed", "empty"]);
/** Statuses cancel takes: a run that goes on, or that waits (lib/steps/cancel.ts). */
const CANCELLABLE = new Set<RunStatus>([
  "running",
  "paused",
  "waiting",
  "interrupted",
  "failed",
  "budget_exhausted",
]);

/** A form the viewer's script submits as JSON to `path` (see script/actions.ts); `data-action` names it. */
const form = (action: string, path: string, label: string, inner: Html, testId = action) =>
  html`<form class="action" data-action="${action}" data-path="${path}" aria-label="${label}" data-testid="${testId}">${inner}</form>`;

/** A labelled field; `id` is unique on the page. */
const field = (id: string, name: string, label: string, control: "input" | "textarea", required = false) =>
  control === "textarea"
    ? html`<label for="${id}">${label}</label><textarea id="${id}" name="${name}" rows="2"${required ? html` required` : null}></textarea>`
    : html`<label for="${id}">${label}</label><input id="${id}" name="${name}" type="text" autocomplete="name">`;

/** A call's arguments as the decide form shows them: when clipped, with a link to them whole in the timeline. */
function callArguments(call: ToolCall): Html {
  const shown = clipped(call.arguments);
  const whole =
    shown === call.arguments
      ? null
      : html`<p data-testid="arguments-clipped">Shortened here: read them whole from the call ${callLink(call.id)} in the timeline.</p>`;
  return html`<pre class="payload" aria-label="arguments">${shown}</pre>${whole}`;
}

function decideForm(runId: string, call: ToolCall): Html {
  const id = `decide-${segment(call.id)}`;
  return form(
    "decide",
    `/runs/${segment(runId)}/approvals/${segment(call.id)}`,
    `Decide on ${call.name} (${call.id})`,
    html`<p><strong>${call.name}</strong> <code>${call.id}</code></p>${callArguments(call)}
${field(`${id}-reason`, "reason", "Reason (optional)", "textarea")}
${field(`${id}-by`, "by", "Your name (optional)", "input")}
<div class="buttons"><button type="submit" name="approved" value="true">Approve</button><button type="submit" name="approved" value="false">Reject</button></div>`,
    `decide-${call.id}`,
  );
}

/** The forms for what can be done to this run now, each where it applies. */
export function actions({ runId, status, point, lastSeq }: ActionFacts): Html {
  const path = (action: string) => `/runs/${segment(runId)}/${action}`;
  const waiting = !point.resumable && "waitingToolCalls" in point ? (point.waitingToolCalls ?? []) : [];
  return html`${waiting.map((call) => decideForm(runId, call))}
${point.resumable ? form("resume", path("resume"), "Resume the run", html`<button type="submit">Resume</button>`) : null}
${NO_MESSAGES.has(status) ? null : form("message", path("messages"), "Send a message", html`${field("message-text", "message", "Message", "textarea", true)}<div class="buttons"><button type="submit">Send</button></div>`)}
${form(
  "fork",
  path("fork"),
  "Fork the run",
  html`<label for="fork-at">Fork at event #</label><input id="fork-at" name="atSeq" type="number" min="1" max="${lastSeq}" value="${lastSeq}" required>
${field("fork-input", "input", "New input (optional)", "textarea")}<div class="buttons"><button type="submit">Fork</button></div>`,
)}
${CANCELLABLE.has(status) ? form("cancel", path("cancel"), "Cancel the run", html`${field("cancel-reason", "reason", "Reason (optional)", "textarea")}${field("cancel-by", "by", "Your name (optional)", "input")}<div class="buttons"><button type="submit" class="danger">Cancel run</button></div>`) : null}`;
}
