/**
 * The viewer's script, served as /_viewer/viewer.js: plain JavaScript for current browsers, no
 * framework. It is text here because the package's build compiles TypeScript only (no bundler,
 * nothing to copy). It does three things:
 *
 * - submits the action forms as JSON to the routes their `data-path` names, and shows the answer
 *   or the error's message (a fork lands on the fork's page);
 * - on a run's page that reaches the log's end, follows new events: GET /runs/{id}/live
 *   (Server-Sent Events), or, where the server cannot push (404, or no EventSource), long-polls
 *   GET /runs/{id}/events?after=SEQ&wait=20. Either way new entries are rendered by the server
 *   (GET /runs/{id}/view/events?after=SEQ), so there is one renderer of events;
 * - shows streamed model text (`delta`) until the stored response replaces it, and refreshes the
 *   state (status, resume point, actions) when GET /runs/{id} shows another status, keeping
 *   what was typed in its fields, and says the new status in a status region (read by screen
 *   readers).
 */
// biome-ignore lint/complexity/noUselessStringRaw: a guard: an escape written into the script later (a "\n", a regex) must reach the browser as written.
export const VIEWER_SCRIPT = String.raw`"use strict";
(function () {
  var main = document.querySelector("main[data-run-id]");
  var message = document.getElementById("action-message");
  var runId = main ? main.getAttribute("data-run-id") : null;
  var base = runId === null ? "" : "/runs/" + encodeURIComponent(runId);
  var lastSeq = main ? Number(main.getAttribute("data-last-seq")) : 0;
  var loading = null;
  var again = false;

  var announcer = main ? statusAnnouncer() : null;
  // Focusable by the script only (not a tab stop): where the focus goes after an action (onSubmit).
  if (message) message.setAttribute("tabindex", "-1");
  document.addEventListener("submit", onSubmit);
  if (main && main.getAttribute("data-live") === "true") follow();

  function show(outcome, text) {
    if (!message) return;
    message.setAttribute("data-outcome", outcome);
    message.setAttribute("role", outcome === "error" ? "alert" : "status");
    message.textContent = text;
  }

  function setLive(text) {
    var live = document.getElementById("live-status");
    if (live) live.textContent = text;
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

  function get(path, accept) {
    return fetch(path, { headers: { accept: accept } }).then(function (response) {
      if (!response.ok) throw new Error("GET " + path + " answered " + response.status);
      return response;
    });
  }

  function shownStatus() {
    var status = document.querySelector("#run-state [data-status]");
    return status ? status.getAttribute("data-status") : null;
  }

  /** The state again when the run's status is not the one shown (or always, after an action). */
  function refreshState(always) {
    return get(base, "application/json")
      .then(function (response) { return response.json(); })
      .then(function (run) {
        var before = shownStatus();
        if (!always && run.status === before) return;
        return get(base + "/view/state?last=" + Math.max(1, lastSeq), "text/html")
          .then(function (response) { return response.text(); })
          .then(function (html) {
            var state = document.getElementById("run-state");
            var restore = keepTyped(state);
            state.innerHTML = html;
            restore();
            var now = shownStatus();
            if (now !== before) announce("The run is now " + now + ".");
          });
      });
  }

  /**
   * What a person has typed in the state's fields (by id), and where the focus was: the state is
   * replaced whole when the run's status changes, and a message half written must not vanish.
   * Returns what puts it back into the fields of the new state that have the same ids, and keeps
   * the buttons of a form whose action is awaited disabled.
   */
  function keepTyped(state) {
    var typed = [];
    state.querySelectorAll("input[id], textarea[id]").forEach(function (field) {
      if (field.value !== field.defaultValue) typed.push({ id: field.id, value: field.value });
    });
    var focused = state.contains(document.activeElement) ? document.activeElement.id : "";
    return function () {
      typed.forEach(function (kept) {
        var field = document.getElementById(kept.id);
        if (field && state.contains(field)) field.value = kept.value;
      });
      var again = focused ? document.getElementById(focused) : null;
      if (again && state.contains(again)) again.focus();
      Object.keys(sending).forEach(function (path) { setSending(path, true); });
    };
  }

  /**
   * A status region outside the state, which is replaced whole: a live region must be on the page
   * before its text changes for a screen reader to read the change. Shown to screen readers only.
   */
  function statusAnnouncer() {
    var state = document.getElementById("run-state");
    if (!state) return null;
    var region = document.createElement("p");
    region.id = "status-announcement";
    region.className = "visually-hidden";
    region.setAttribute("role", "status");
    region.setAttribute("data-testid", "status-announcement");
    state.after(region);
    return region;
  }

  function announce(text) {
    if (announcer) announcer.textContent = text;
  }

  function appendItems(html) {
    var template = document.createElement("template");
    template.innerHTML = html;
    var timeline = document.getElementById("timeline");
    Array.prototype.slice.call(template.content.children).forEach(function (item) {
      var seq = Number(item.getAttribute("data-seq"));
      if (!(seq > lastSeq)) return;
      timeline.appendChild(item);
      lastSeq = seq;
      var type = item.getAttribute("data-type");
      if (type === "model_response" || type === "model_failed") clearStreaming();
    });
    main.setAttribute("data-last-seq", String(lastSeq));
  }

  function loadOnce() {
    return get(base + "/view/events?after=" + lastSeq, "text/html").then(function (response) {
      if (response.headers.get("runlog-next") !== null) again = true;
      return response.text().then(appendItems);
    });
  }

  /** Fetch the entries after the last one shown; calls while one is under way join it. */
  function loadEvents() {
    if (loading) {
      again = true;
      return loading;
    }
    loading = (async function () {
      try {
        do {
          again = false;
          await loadOnce();
        } while (again);
        await refreshState(false);
      } finally {
        loading = null;
      }
    })();
    return loading;
  }

  function clearStreaming() {
    var block = document.getElementById("streaming");
    if (!block) return;
    block.hidden = true;
    block.querySelector(".streaming-text").textContent = "";
  }

  function appendDelta(text) {
    var block = document.getElementById("streaming");
    if (!block) return;
    block.hidden = false;
    block.querySelector(".streaming-text").textContent += text;
  }

  function failed(error) {
    setLive("Live updates stopped: " + error.message + ". Reload the page to see new events.");
  }

  function follow() {
    // While it runs, its end (the lease given back) writes no event: ask for the status now and then.
    setInterval(function () {
      if (shownStatus() === "running") refreshState(false).catch(failed);
    }, 2000);
    if (typeof EventSource !== "function") return longPoll();
    var opened = false;
    var source = new EventSource(base + "/live?after=" + lastSeq);
    source.addEventListener("open", function () {
      opened = true;
      setLive("Live: new events are pushed by the server.");
    });
    source.addEventListener("appended", function (event) {
      if (Number(event.lastEventId) > lastSeq) loadEvents().catch(failed);
    });
    source.addEventListener("delta", function (event) {
      appendDelta(JSON.parse(event.data).text);
    });
    source.addEventListener("error", function () {
      // Never opened: this server does not push (404 live_unavailable). Once open, EventSource reconnects itself.
      if (opened) return;
      source.close();
      longPoll();
    });
  }

  function sleep(ms) {
    return new Promise(function (resolve) { setTimeout(resolve, ms); });
  }

  /** GET /runs/{id}/events?after&wait=20 until the page closes (the server holds it until an event comes). */
  async function longPoll() {
    setLive("Live: asking the server for new events.");
    for (;;) {
      try {
        var response = await get(base + "/events?limit=1&after=" + lastSeq + "&wait=20", "application/json");
        var page = await response.json();
        if (page.events.length > 0) await loadEvents();
      } catch (error) {
        setLive("Live: " + error.message + "; trying again.");
        await sleep(2000);
      }
    }
  }
})();
`;
