/**
 * The viewer's styles: system fonts, text contrast above 7:1 on its backgrounds, a focus ring on
 * everything that takes focus, one column in a narrow window. Ids, payloads and code break
 * anywhere rather than widen the page (payloads are never scroll boxes, which a keyboard cannot
 * reach); only the runs table scrolls sideways, in its own box. A few KB, no web fonts.
 * test/browser/accessibility.test.ts checks all of this in Chromium.
 */
export const VIEWER_STYLE = `
:root { color-scheme: light; --fg: #1a1a1a; --muted: #4a4a4a; --bg: #fff; --panel: #f4f5f7; --line: #c9ccd1; --link: #0b4fb3; --bad: #a3120b; --ok: #1d5e20; --focus: #0b4fb3; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
header.site { padding: .5rem 1rem; background: var(--panel); border-bottom: 1px solid var(--line); font-weight: 600; }
main { max-width: 72rem; margin: 0 auto; padding: 1rem; overflow-wrap: anywhere; }
a { color: var(--link); }
:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
h1 { font-size: 1.5rem; overflow-wrap: anywhere; }
h2 { font-size: 1.2rem; margin-top: 2rem; }
h3 { font-size: 1rem; margin: 0 0 .25rem; }
code, pre { font: .875rem/1.4 ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; }
pre.payload, pre.resume-point { white-space: pre-wrap; overflow-wrap: anywhere; background: var(--panel); border: 1px solid var(--line); padding: .5rem; margin: .25rem 0; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; }
caption { text-align: left; color: var(--muted); padding: .25rem 0; }
th, td { text-align: left; padding: .4rem .6rem; border-bottom: 1px solid var(--line); vertical-align: top; overflow-wrap: normal; }
th[scope=row] { font-weight: normal; overflow-wrap: anywhere; }
td.number { text-align: right; font-variant-numeric: tabular-nums; }
.status { font-weight: 600; }
.status.failed, .status.malformed, .status.cancelled { color: var(--bad); }
.status.completed { color: var(--ok); }
form.filter { display: flex; gap: .5rem; align-items: center; flex-wrap: wrap; margin-bottom: 1rem; }
dl.about { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; }
dl.about dt { color: var(--muted); }
dl.about dd { margin: 0; overflow-wrap: anywhere; }
ol.timeline { list-style: none; padding: 0; }
li.event { border-left: 4px solid var(--line); padding: .5rem .75rem; margin: .5rem 0; background: var(--bg); }
li.event.model_response { border-left-color: #0b4fb3; }
li.event.tool_result, li.event.tool_started { border-left-color: #6b4c00; }
li.event.resumed, li.event.tool_decided { border-left-color: #1d5e20; }
li.event.cancelled, li.event.model_failed { border-left-color: var(--bad); }
li.event time { color: var(--muted); font-weight: normal; font-size: .875rem; }
a.seq { color: var(--muted); }
.facts { display: flex; flex-wrap: wrap; gap: .25rem 1rem; margin: .25rem 0; color: var(--muted); }
.facts strong { color: var(--fg); }
ul.calls { padding-left: 1rem; }
ul.forks { list-style: none; padding: 0; margin: 0; }
.badge { background: #fff3c4; color: #4a3800; border: 1px solid #8a6d00; padding: 0 .3rem; font-size: .8rem; }
.actions { display: grid; gap: 1rem; grid-template-columns: repeat(auto-fill, minmax(min(18rem, 100%), 1fr)); }
form.action { border: 1px solid var(--line); padding: .75rem; display: flex; flex-direction: column; gap: .35rem; }
label { font-weight: 600; }
input, select, textarea, button { font: inherit; color: var(--fg); }
input, textarea, select { border: 1px solid #6b6f76; padding: .3rem; background: #fff; width: 100%; }
select { width: auto; }
.buttons { display: flex; gap: .5rem; flex-wrap: wrap; }
button { border: 1px solid #0b3f8f; background: #0b4fb3; color: #fff; padding: .35rem .9rem; cursor: pointer; }
button.danger, form[data-action=decide] button[value=false] { background: var(--bad); border-color: #6e0c07; }
button:disabled { opacity: .6; cursor: wait; }
#action-message:not(:empty) { margin-top: 1rem; padding: .5rem; border: 1px solid var(--line); }
#action-message[data-outcome=error] { color: var(--bad); border-color: var(--bad); }
.streaming { border: 1px dashed #0b4fb3; padding: .5rem .75rem; }
.streaming-text { white-space: pre-wrap; overflow-wrap: anywhere; }
nav.pager { display: flex; gap: 1rem; }
table.compare td { width: 45%; }
table.compare tr.changed > th, table.compare tr.changed > td { background: #fffbe6; }
table.compare tr.first-difference > th, table.compare tr.first-difference > td, ol.calls li.first-difference, ol.differences li.first-difference { background: #fff3c4; outline: 2px solid #8a6d00; outline-offset: -2px; }
ol.calls { padding-left: 1.5rem; margin: 0; }
.visually-hidden { position: absolute; width: 1px; height: 1px; margin: -1px; padding: 0; overflow: hidden; clip-path: inset(50%); white-space: nowrap; border: 0; }
@media (max-width: 40rem) { main { padding: .5rem; } dl.about { grid-template-columns: 1fr; } dl.about dd { margin-bottom: .5rem; } }
`;
