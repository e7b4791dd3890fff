import { ACTIONS } from "./actions.ts";
import { LIVE } from "./live.ts";
import { js } from "./source.ts";
import { STATE } from "./state.ts";

/**
 * The viewer's script, served as /_viewer/viewer.js: plain JavaScript for current browsers, no
 * framework. It is text here because the package's build compiles TypeScript only (no bundler,
 * nothing to copy). It is one function scope in three parts that share its names: the action
 * forms (actions.ts), the state block (state.ts), and following new events live (live.ts).
 * The names every part reads are declared here, and the page is wired up once all are defined.
 */
export const VIEWER_SCRIPT = js`"use strict";
(function () {
  var main = document.querySelector("main[data-run-id]");
  var message = document.getElementById("action-message");
  var runId = main ? main.getAttribute("data-run-id") : null;
  var base = runId === null ? "" : "/runs/" + encodeURIComponent(runId);
  var lastSeq = main ? Number(main.getAttribute("data-last-seq")) : 0;

  function get(path, accept) {
    return fetch(path, { headers: { accept: accept } }).then(function (response) {
      if (!response.ok) throw new Error("GET " + path + " answered " + response.status);
      return response;
    });
  }
${ACTIONS}${STATE}${LIVE}
  // Focusable by the script only (not a tab stop): where the focus goes after an action (onSubmit).
  if (message) message.setAttribute("tabindex", "-1");
  document.addEventListener("submit", onSubmit);
  if (main && main.getAttribute("data-live") === "true") follow();
})();
`;
