import { INVISIBLE } from "../../../core/display.ts";
import { js } from "./source.ts";

/**
 * Following a run's page that reaches the log's end: GET /runs/{id}/live (Server-Sent Events),
 * or, where the server cannot push (404, or no EventSource), long-polling
 * GET /runs/{id}/events?after=SEQ&wait=20. Either way new entries are rendered by the server
 * (GET /runs/{id}/view/events?after=SEQ), so there is one renderer of events; streamed model text
 * (`delta`) is shown until the stored response replaces it.
 * Part of VIEWER_SCRIPT (index.ts), whose names it shares.
 */
export const LIVE = js`
  function setLive(text) {
    var live = document.getElementById("live-status");
    if (live) live.textContent = text;
  }

  var loading = null;
  var again = false;

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

  /**
   * Fetch the entries after the last one shown, then the state; calls while one is under way join
   * it, and one that came while the state was being fetched makes it fetch the entries again.
   */
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
          if (!again) await refreshState(false);
        } while (again);
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

  // As lib/core/display.ts shows them on the server: the streamed text is the model's too.
  var INVISIBLE = new RegExp(${JSON.stringify(INVISIBLE.source)}, "gu");
  function showInvisible(text) {
    return text.replace(INVISIBLE, function (char) {
      return "\\u{" + char.codePointAt(0).toString(16) + "}";
    });
  }

  function appendDelta(text) {
    var block = document.getElementById("streaming");
    if (!block) return;
    block.hidden = false;
    block.querySelector(".streaming-text").textContent += showInvisible(text);
  }

  function failed(error) {
    setLive("Live updates stopped: " + error.message + ". Reload the page to see new events.");
  }

  function follow() {
    // While it runs, its end (the lease given back) writes no event: ask for the status now and then.
    // A status that moves on shows with the events that moved it, whoever stored them.
    setInterval(function () {
      if (shownStatus() !== "running") return;
      refreshState(false)
        .then(function () {
          if (shownStatus() !== "running") return loadEvents();
        })
        .catch(failed);
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
`;
