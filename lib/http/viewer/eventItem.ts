import type { TruncatedEvent } from "../../api/eventPage.ts";
import { assertNever } from "../../core/assertNever.ts";
import type { ToolCall } from "../../core/eventFields.ts";
import type { EventOf, RunEvent } from "../../core/events.ts";
import { clipped, PREVIEW_CHARS, payload } from "./fold.ts";
import { type Html, html, runHref, segment } from "./html.ts";

const ms = (value: number | undefined) =>
  value === undefined ? null : html`<span>${Math.round(value)} ms</span>`;

/** A link to a call's entry in its model turn: tool events (and the decide form) name calls by id. */
export const callLink = (callId: string) =>
  html`<a href="#call-${segment(callId)}"><code>${callId}</code></a>`;

function toolCall(runId: string, event: EventOf<"model_response">, call: ToolCall): Html {
  const needsApproval = event.approvals?.includes(call.id) === true;
  return html`<li id="call-${segment(call.id)}" data-testid="tool-call" data-call-id="${call.id}">
<p><strong>${call.name}</strong> <code>${call.id}</code>${needsApproval ? html` <span class="badge">needs approval</span>` : null}</p>
${payload(runId, event, `arguments of ${call.name}`, call.arguments)}
</li>`;
}

function modelTurn(runId: string, event: EventOf<"model_response">): Html {
  const tokens = event.usage
    ? html`<span>${event.usage.inputTokens} → ${event.usage.outputTokens} tokens</span>`
    : null;
  return html`<p class="facts"><span>stop: <strong data-testid="stop">${event.stop}</strong></span>${tokens}${ms(event.ms)}${event.model ? html`<span>${event.model}</span>` : null}</p>
${event.text === "" ? null : payload(runId, event, "model text", event.text)}
${event.toolCalls.length === 0 ? null : html`<ul class="calls" aria-label="tool calls asked for">${event.toolCalls.map((call) => toolCall(runId, event, call))}</ul>`}`;
}

function toolResult(runId: string, event: EventOf<"tool_result">): Html {
  const how = event.interrupted ? "answered as interrupted" : event.isError ? "error" : "result";
  const rerun = event.rerun
    ? html`<span class="badge" data-testid="rerun">run again: the call had started before its run was interrupted</span>`
    : null;
  return html`<p class="facts"><span data-testid="tool-outcome">${how}</span>${rerun}${ms(event.ms)}<span>call ${callLink(event.callId)}</span></p>
${payload(runId, event, `${how} of ${event.name}`, event.content)}`;
}

/** The heading of an event's entry: what happened, in a few words. */
export function title(event: RunEvent): string {
  switch (event.type) {
    case "run_started":
      return "Run started";
    case "user_message":
      return "User message";
    case "model_response":
      return event.stop === "tool_calls" ? "Model asks for tools" : "Model response";
    case "output_rejected":
      return `Answer ${event.attempt} rejected by the output schema`;
    case "model_failed":
      return "Model call failed";
    case "tool_started":
      return `Tool ${event.name} started`;
    case "tool_result":
      if (event.interrupted) return `Tool ${event.name} interrupted`;
      return `Tool ${event.name} ${event.isError ? "failed" : "finished"}${event.rerun ? " (re-run)" : ""}`;
    case "resumed":
      return `Resumed: generation ${event.generation}`;
    case "transferred":
      return `Transferred to agent ${event.to}`;
    case "tool_decided":
      return `${event.approved ? "Approved" : "Rejected"} ${event.callId}`;
    case "cancelled":
      return "Cancelled";
    case "execution_stopped":
      return "Execution stopped outside runlog";
    case "budget_exhausted":
      return `Budget exhausted: ${event.limit}`;
    case "paused":
      return "Paused for approval";
    case "given_up":
      return "Automatic resumes given up";
    case "response_progress":
      return "Model text saved while streaming";
    default:
      return assertNever(event);
  }
}

function body(runId: string, event: RunEvent): Html | null {
  switch (event.type) {
    case "run_started":
      return html`<p class="facts"><span>agent ${event.agent}</span><span>model ${event.model}</span>${event.parent === undefined ? null : "seq" in event.parent ? html`<span>forked from <a href="${runHref(event.parent.runId)}#e${event.parent.seq}" data-testid="parent-link">${event.parent.runId}</a> at event ${event.parent.seq}</span>` : html`<span>sub-agent of <a href="${runHref(event.parent.runId)}" data-testid="parent-link">${event.parent.runId}</a>, call ${event.parent.callId}</span>`}</p>
${payload(runId, event, "input", event.input)}`;
    case "user_message":
      return payload(runId, event, "message", event.text);
    case "model_response":
      return modelTurn(runId, event);
    case "output_rejected":
      return html`<p class="facts"><span>attempt ${String(event.attempt)}</span><span>${event.retry ? "asked again" : "no try left: invalid_output"}</span>${ms(event.ms)}${event.model ? html`<span>${event.model}</span>` : null}</p>
${payload(runId, event, "model text", event.text)}
${payload(runId, event, "problems", event.problems)}`;
    case "model_failed":
      return html`<p class="facts"><span>${event.error.name}</span><span>${event.retryable ? "retryable" : "not retryable"}</span>${event.model ? html`<span>${event.model}</span>` : null}</p>
${payload(runId, event, "error message", event.error.message)}`;
    case "tool_started":
      return html`<p class="facts"><span>call ${callLink(event.callId)}</span></p>`;
    case "tool_result":
      return toolResult(runId, event);
    case "transferred":
      return html`<p class="facts"><span>from <strong>${event.from}</strong></span><span>to <strong data-testid="transferred-to">${event.to}</strong></span><span>call ${callLink(event.callId)}</span>${event.model ? html`<span>model ${event.model}</span>` : null}</p>
${event.reason ? payload(runId, event, "reason", event.reason) : null}`;
    case "resumed":
      return html`<p class="facts">${actor(event.by ?? "unknown (not recorded)", event.onBehalfOf, "resumed-by")}${event.actor ? html`<span>asked by <strong data-testid="resumed-actor">${event.actor}</strong></span>` : null}<span>${event.kind}</span>${event.model ? html`<span>model ${event.model}</span>` : null}</p>
<p>${event.description}</p>
${event.input === undefined ? null : payload(runId, event, "new user message", event.input)}`;
    case "tool_decided":
      return html`<p class="facts">${actor(event.by, event.onBehalfOf, "decided-by")}<span>call ${callLink(event.callId)}</span></p>
${event.reason ? payload(runId, event, "reason", event.reason) : null}`;
    case "cancelled":
      return html`<p class="facts">${actor(event.by, event.onBehalfOf, "cancelled-by")}</p>
${event.reason ? payload(runId, event, "reason", event.reason) : null}`;
    case "execution_stopped":
      return html`<p class="facts"><span>generation ${event.generation}</span>${event.execution ? html`<span>execution ${event.execution}</span>` : null}${event.error ? html`<span>${event.error}</span>` : null}</p>
<p>${event.reason}: it waits for a person's resume.</p>
${event.cause ? payload(runId, event, "cause", event.cause) : null}`;
    case "budget_exhausted":
      return html`<p class="facts" data-testid="budget"><span>limit ${event.limit} ${String(event.limits[event.limit])}</span><span>${String(event.used.turns)} turns</span><span>${String(event.used.tokens)} tokens</span>${event.used.costUsd === undefined ? null : html`<span>$${event.used.costUsd.toFixed(4)}</span>`}</p>`;
    case "paused":
      return html`<p class="facts">${event.calls.map((call) => html`<span>${call.name} ${callLink(call.id)}</span>`)}</p>`;
    case "given_up":
      return html`<p class="facts"><span>after ${event.resumes} automatic resumes: resume it by hand</span></p>`;
    case "response_progress":
      return payload(runId, event, "model text saved while streaming", event.text);
    default:
      return assertNever(event);
  }
}

/** Who acted (the authenticated actor), and whom for when the request named someone (kept beside it, never instead). */
const actor = (by: string, onBehalfOf: string | undefined, testId: string) =>
  html`<span>by <strong data-testid="${testId}">${by}</strong>${onBehalfOf === undefined ? null : html` for <strong data-testid="on-behalf-of">${onBehalfOf}</strong>`}</span>`;

const item = (seq: number, type: string, at: string, heading: string, inner: Html | null) =>
  html`<li class="event ${type}" id="e${seq}" data-seq="${seq}" data-type="${type}" data-testid="event">
<h3><a class="seq" href="#e${seq}">#${seq}</a> ${heading} <time datetime="${at}">${at.slice(11, 19)}</time></h3>
${inner}
</li>`;

/**
 * An event too big for a page: the page lists its start, and links to the whole of it. Its preview
 * (EVENT_PREVIEW_BYTES of JSON, over 600 characters) is always clipped, so always ends in "…".
 */
function truncatedItem(entry: TruncatedEvent): Html {
  const link = entry.truncated.href
    ? html`<p><a href="${entry.truncated.href}">The whole event as JSON</a></p>`
    : null;
  return item(
    entry.seq,
    entry.type,
    entry.at,
    `${entry.type} (too big to show here)`,
    html`<details class="folded" data-testid="folded">
<summary>the start of its JSON, folded</summary><pre class="payload">${clipped(entry.truncated.preview, PREVIEW_CHARS)}</pre>${link}</details>`,
  );
}

/** One entry of a run's timeline: the one renderer of events, for the page and for what arrives live. */
export function eventItem(runId: string, entry: RunEvent | TruncatedEvent): Html {
  if ("truncated" in entry) return truncatedItem(entry);
  return item(entry.seq, entry.type, entry.at, title(entry), body(runId, entry));
}
