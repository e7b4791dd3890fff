import { showInvisible } from "../../core/display.ts";

/** Markup that is safe to insert as it is: only `html` and `raw` make one, from escaped parts. */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

/** What `html` takes between its literal parts: text (escaped), numbers, markup, lists of them, or nothing. */
export type Part = Html | string | number | boolean | null | undefined | readonly Part[];

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/**
 * Text as HTML shows it, in an element or in a quoted attribute: model and tool text is arbitrary,
 * so its invisible characters (bidi overrides, zero-width ones) are shown as escapes too.
 */
export const escapeHtml = (text: string): string =>
  showInvisible(text).replace(/[&<>"']/g, (char) => ESCAPES[char]!);

function render(part: Part): string {
  if (part instanceof Html) return part.text;
  if (Array.isArray(part)) return part.map(render).join("");
  if (part === null || part === undefined || part === false) return "";
  return escapeHtml(String(part));
}

/** A template of markup: every value put into it is escaped unless it is Html already. */
export function html(strings: TemplateStringsArray, ...values: Part[]): Html {
  let text = strings[0] ?? "";
  values.forEach((value, i) => {
    text += render(value) + (strings[i + 1] ?? "");
  });
  return new Html(text);
}

/** A path segment of a link (a run id or a call id may hold characters a URL reserves). */
export const segment = (value: string): string => encodeURIComponent(value);

/** Where a run's page is. */
export const runHref = (runId: string): string => `/runs/${segment(runId)}/view`;
