import { canonicalJson, type RunEvent } from "../../core/events.ts";
import { RESPONSE_MAX_BYTES } from "../limits.ts";
import { type Html, html, segment } from "./html.ts";

/** Longer text than this is folded: a preview and a link to the whole event, never the text itself. */
export const FOLD_CHARS = 2000;
/** How much of a folded text the page shows. */
export const PREVIEW_CHARS = 500;

const kib = (bytes: number) => (bytes < 1024 ? `${bytes} bytes` : `${Math.round(bytes / 1024)} KB`);

/** The first `chars` UTF-16 units, not cutting a surrogate pair in two. */
function preview(text: string, chars: number): string {
  const cut = text.slice(0, chars);
  const last = cut.charCodeAt(cut.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? cut.slice(0, -1) : cut;
}

/**
 * Where the whole event is read: GET /runs/{id}/events/{seq}, or its first part when its JSON is
 * more than one answer holds (that route answers such an event only in parts).
 */
export function eventHref(runId: string, event: RunEvent): string {
  const path = `/runs/${segment(runId)}/events/${event.seq}`;
  return Buffer.byteLength(canonicalJson(event), "utf8") > RESPONSE_MAX_BYTES ? `${path}?part=0` : path;
}

/** A text of an event (a response, arguments, a tool result) as a block: whole when short, else folded. */
export function payload(runId: string, event: RunEvent, label: string, text: string): Html {
  if (text.length <= FOLD_CHARS) return html`<pre class="payload" aria-label="${label}">${text}</pre>`;
  const size = kib(Buffer.byteLength(text, "utf8"));
  return html`<details class="folded" data-testid="folded">
<summary>${label}: ${size}, folded (the first ${PREVIEW_CHARS} characters)</summary>
<pre class="payload">${preview(text, PREVIEW_CHARS)}…</pre>
<p><a href="${eventHref(runId, event)}">The whole event as JSON</a></p>
</details>`;
}
