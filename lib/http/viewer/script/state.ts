import { js } from "./source.ts";

/**
 * The state block (status, resume point, actions): rendered again by the server when
 * GET /runs/{id} shows another status (or after an action), keeping what was typed in its fields
 * and the focus, and the new status said in a status region, read by screen readers.
 * Part of VIEWER_SCRIPT (index.ts), whose names it shares.
 */
export const STATE = js`
  var announcer = main ? statusAnnouncer() : null;

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
`;
