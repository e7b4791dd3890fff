import { js } from "./source.ts";

/**
 * The action forms: each is posted as JSON to the route its `data-path` names, its buttons
 * disabled until the answer comes (even in a copy a state refresh renders meanwhile), and the
 * answer or the error's message is shown in #action-message, which takes the focus. A fork lands
 * on the fork's page; any other action resets its form and refreshes the state and the events.
 * Part of VIEWER_SCRIPT (index.ts), whose names it shares.
 */
export const ACTIONS = js`
  function show(outcome, text) {
    if (!message) return;
    message.setAttribute("data-outcome", outcome);
    message.setAttribute("role", outcome === "error" ? "alert" : "status");
    message.textContent = text;
  }

  function bodyOf(form, submitter) {
    var body = {};
    new FormData(form).forEach(function (value, name) {
      var control = form.elements.namedItem(name);
      // A blank optional field is left out; a blank required one is sent, for the server to name it.
      if (typeof value !== "string" || (value.trim() === "" && !(control && control.required))) return;
      body[name] = control && control.type === "number" ? Number(value) : value;
    });
    if (submitter && submitter.name === "approved") body.approved = submitter.value === "true";
    return body;
  }

  function postJson(path, body) {
    return fetch(path, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify(body),
    }).then(function (response) {
      return response.text().then(function (text) {
        var answer = text === "" ? {} : JSON.parse(text);
        if (!response.ok) {
          var error = answer.error || {};
          throw new Error(error.message || response.status + " " + response.statusText);
        }
        return answer;
      });
    });
  }

  var DONE = { decide: "Decision recorded", resume: "Resumed", message: "Message sent", cancel: "Cancelled" };

  // The data-path of each form whose action is awaited: a refresh of the state that re-renders
  // such a form keeps its buttons disabled (see keepTyped), so the action is not sent twice.
  var sending = {};

  /** The form on the page now that posts to path: a refresh of the state may have replaced the one submitted. */
  function formAt(path) {
    return document.querySelector('form[data-path="' + CSS.escape(path) + '"]');
  }

  function setSending(path, on) {
    if (on) sending[path] = true;
    else delete sending[path];
    var form = formAt(path);
    if (form) form.querySelectorAll("button").forEach(function (button) { button.disabled = on; });
  }

  function onSubmit(event) {
    var form = event.target;
    if (!(form instanceof HTMLFormElement) || !form.hasAttribute("data-action")) return;
    event.preventDefault();
    var action = form.getAttribute("data-action");
    var path = form.getAttribute("data-path");
    var focusWasIn = form.contains(document.activeElement);
    var body = bodyOf(form, event.submitter);
    setSending(path, true);
    show("pending", "Sending…");
    postJson(path, body)
      .then(function (answer) {
        if (action === "fork") {
          window.location.assign("/runs/" + encodeURIComponent(answer.runId) + "/view");
          return;
        }
        // Done with what was typed in it: a refresh must not bring it back (see keepTyped). A live
        // refresh while the answer was awaited may have put it into a new copy of the form already.
        form.reset();
        var now = formAt(path);
        if (now) now.reset();
        var outcome = answer.resumed === false ? "Nothing to resume (" + answer.reason + ")" : DONE[action];
        show("ok", outcome + ": run " + answer.runId + " is " + answer.status + ".");
        // The form is about to be replaced with the state: the focus goes now to what happened.
        if (focusWasIn && message) message.focus();
        if (main) return refreshState(true).then(loadEvents);
      })
      .catch(function (error) {
        show("error", error.message);
        // The focused button was disabled, or a live refresh replaced its form while the answer
        // was awaited: the focus would be lost (back to the page's start).
        if (focusWasIn && message && !form.contains(document.activeElement)) message.focus();
      })
      .finally(function () { setSending(path, false); });
  }
`;
