import { type Html, html } from "./html.ts";

/** Where the viewer's own files are served; nothing is loaded from anywhere else. */
export const ASSETS = "/_viewer";

/**
 * What a viewer page may load and do: only this server's script, styles and JSON routes. Escaping
 * is the defence against text from a model or a tool; this keeps a slip in it from running anything.
 */
export const PAGE_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/** A whole viewer page around `main`. */
export function page(title: string, main: Html): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · runlog</title>
<link rel="stylesheet" href="${ASSETS}/viewer.css">
<script src="${ASSETS}/viewer.js" defer></script>
</head>
<body>
<header class="site"><a href="/">runlog</a></header>
${main}
</body>
</html>
`;
}

/** The page an error of a viewer route becomes: its status and message, as the JSON routes say them. */
export function errorPage(status: number, message: string): Html {
  return page(
    `Error ${status}`,
    html`<main><h1>Error ${status}</h1><p role="alert" data-testid="error-message">${message}</p><p><a href="/">All runs</a></p></main>`,
  );
}
