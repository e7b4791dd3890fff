import type { InCharge, Runlog } from "../../api/runlog.ts";
import { CorruptEventError, MissingIndexError } from "../../core/errors.ts";
import type { RunEvent, RunStarted } from "../../core/events.ts";
import type { RunHead, RunPage } from "../../ports/eventStore.ts";
import { compareHref } from "./comparePage.ts";
import { type Html, html, runHref, segment } from "./html.ts";

/** Forks a run's page lists; a link leads to all of them when there are more. */
export const FORKS_SHOWN = 10;

/** The run's forks, newest activity first, each with where it was forked; or why they cannot be listed. */
async function forks(runlog: Runlog, runId: string): Promise<Html> {
  let page: RunPage;
  try {
    page = await runlog.list({ parent: runId, limit: FORKS_SHOWN });
  } catch (error) {
    // A deployed table from before the parent index: the page still shows the run, and says why.
    if (error instanceof MissingIndexError)
      return html`<dd data-testid="forks">not listed: ${error.message}</dd>`;
    throw error;
  }
  if (page.runs.length === 0) return html`<dd data-testid="forks">none</dd>`;
  const items = page.runs.map(
    (fork) =>
      html`<li><a href="${runHref(fork.runId)}" data-testid="fork-link">${fork.runId}</a> at event ${fork.parent?.seq ?? "?"}, ${fork.status}</li>`,
  );
  const all =
    page.cursor === undefined
      ? null
      : html`<a href="/?parent=${encodeURIComponent(runId)}" data-testid="all-forks">all forks</a>`;
  return html`<dd data-testid="forks"><ul class="forks">${items}</ul>${all}</dd>`;
}

/**
 * The runs its sub-agent calls started, in call order, with their status (`runlog ls
 * --children-of`: named by the run's log, on any store); nothing for a run that started none.
 */
async function children(runlog: Runlog, runId: string): Promise<Html | null> {
  let runs: RunHead[];
  try {
    runs = (await runlog.list({ childrenOf: runId })).runs;
  } catch (error) {
    // A log with a bad record still shows its page (its state says malformed).
    if (error instanceof CorruptEventError)
      return html`<dt>Sub-agent runs</dt><dd data-testid="children">not listed: ${error.message}</dd>`;
    throw error;
  }
  if (runs.length === 0) return null;
  const items = runs.map(
    (child) =>
      html`<li data-testid="child" data-run-id="${child.runId}"><a href="${runHref(child.runId)}" data-testid="child-link">${child.runId}</a> (${child.agent}), <span class="status ${child.status}" data-testid="child-status">${child.status}</span></li>`,
  );
  return html`<dt>Sub-agent runs</dt><dd data-testid="children"><ul class="forks">${items}</ul></dd>`;
}

/** The agent and model now in charge; those of the start when the log's tail cannot be read. */
async function inCharge(runlog: Runlog, runId: string, started: RunStarted | undefined): Promise<InCharge> {
  try {
    return await runlog.inCharge(runId);
  } catch (error) {
    if (!(error instanceof CorruptEventError)) throw error;
    const first = { agent: started?.agent ?? "unknown", model: started?.model ?? "unknown" };
    return { ...first, startedAs: first };
  }
}

/** Where the run came from: the run it forks, the sub-agent call that started it, or the run it replays. */
function origin(started: RunStarted | undefined, runId: string): Html | null {
  const from = started?.parent;
  const parent =
    from === undefined
      ? null
      : "seq" in from
        ? html`<dt>Forked from</dt><dd><a href="${runHref(from.runId)}#e${from.seq}" data-testid="parent-run">${from.runId}</a> at event ${from.seq}</dd>`
        : html`<dt>Sub-agent of</dt><dd><a href="${runHref(from.runId)}" data-testid="parent-run">${from.runId}</a>, call ${from.callId}</dd>`;
  // A replay's metadata names its original (lib/api/replay.ts): compare the two.
  const replayOf = started?.metadata?.replayOf;
  const replay =
    typeof replayOf === "string" && replayOf !== ""
      ? html`<dt>Replay of</dt><dd><a href="${runHref(replayOf)}" data-testid="replay-of">${replayOf}</a> · <a href="${compareHref(replayOf, runId)}" data-testid="compare-link">compare with it</a></dd>`
      : null;
  return html`${parent}${replay}`;
}

/** The facts at the top of a run's page: who runs it, where it came from, its forks and sub-agent runs. */
export async function about(runlog: Runlog, runId: string, first: RunEvent): Promise<Html> {
  const started = first.type === "run_started" ? first : undefined;
  const [now, forkList, childList] = await Promise.all([
    inCharge(runlog, runId, started),
    forks(runlog, runId),
    children(runlog, runId),
  ]);
  const agentWas =
    now.agent === now.startedAs.agent
      ? null
      : html` <span data-testid="started-as">(started as ${now.startedAs.agent})</span>`;
  const modelWas =
    now.model === now.startedAs.model
      ? null
      : html` <span data-testid="started-with">(started with ${now.startedAs.model})</span>`;
  return html`<dl class="about">
<dt>Agent</dt><dd><span data-testid="agent">${now.agent}</span>${agentWas}</dd>
<dt>Model</dt><dd><span data-testid="model">${now.model}</span>${modelWas}</dd>
<dt>Started</dt><dd><time datetime="${first.at}">${first.at}</time></dd>
${origin(started, runId)}
${childList}
<dt>Forks</dt>${forkList}
<dt>JSON</dt><dd><a href="/runs/${segment(runId)}">status</a> · <a href="/runs/${segment(runId)}/events">events</a></dd>
</dl>`;
}
