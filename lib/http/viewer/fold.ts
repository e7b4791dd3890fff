import type { RunEvent } from "../../core/events.ts";
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

/** Text of at most `chars` UTF-16 units as it is, else its first `chars` (see preview) and "…". */
export const clipped = (text: string, chars = FOLD_CHARS): string =>
  text.length <= chars ? text : `${preview(text, chars)}…`;

/**
 * Where the whole event is read: GET /runs/{id}/events/{seq}. An event listed whole fits one
 * answer of that route (a page lists it whole only within eventListing's budget, which is less).
 */
const eventHref = (runId: string, event: RunEvent) => `/runs/${segment(runId)}/events/${event.seq}`;

/** A text of an event (a response, arguments, a tool result) as a block: whole when short, else folded. */
export function payload(runId: string, event: RunEvent, label: string, text: string): Html {
  if (text.length <= FOLD_CHARS) return html`<pre class="payload" aria-label="${label}">${text}</pre>`;
  const size = kib(Buffer.byteLength(text, "utf8"));
  return html`<details class="folded" data-testid="folded">
<summary>${label}: ${size}, folded (the first ${PREVIEW_CHARS} characters)</summary>
<pre class="payload">${clipped(text, PREVIEW_CHARS)}</pre>
<p><a href="${eventHref(runId, event)}">The whole event as JSON</a></p>
</details>`;
}
