import { html, trusted, type SafeHtml } from './html';

/** The console's sections, in navigation order. */
export const CONSOLE_NAV = [
  { href: '/', label: 'Runs' },
  { href: '/state-machines', label: 'State machines' },
  { href: '/services', label: 'Services' },
  { href: '/approvals', label: 'Approvals' },
  { href: '/dlq', label: 'Dead letters' },
  { href: '/outbox', label: 'Outbox' },
] as const;

// One small stylesheet, inline: the console makes no request but its own pages (works offline, no build).
const STYLE = trusted(`
:root { --done:#2e7d32; --done-bg:#e3f3e4; --run:#1f5fbf; --run-bg:#dde8fb; --wait:#a56a00; --wait-bg:#fff0c7;
  --fail:#c62828; --fail-bg:#fde0dd; --skip:#5f7f63; --skip-bg:#eef2ee; --none:#8a8f98; --none-bg:#fff; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0; color: #1d2330; background: #f6f7f9; }
header { background: #1d2330; color: #fff; padding: 10px 20px; display: flex; gap: 22px; align-items: center; }
header a { color: #cfd6e4; text-decoration: none; } header a.active, header a:hover { color: #fff; }
header .brand { font-weight: 700; color: #fff; margin-right: 12px; }
main { padding: 18px 20px; max-width: 1500px; }
h1 { font-size: 20px; margin: 0 0 12px; } h2 { font-size: 16px; margin: 18px 0 8px; }
table { border-collapse: collapse; background: #fff; width: 100%; }
th, td { text-align: left; padding: 5px 8px; border-bottom: 1px solid #e4e7ec; vertical-align: top; }
th { font-weight: 600; background: #eef0f4; }
code, pre { font: 12px/1.4 ui-monospace, SFMono-Regular, Menlo, monospace; }
pre { background: #fff; border: 1px solid #e4e7ec; padding: 8px; overflow: auto; max-height: 260px; margin: 0; }
.filters a { margin-right: 10px; display: inline-block; } .filters a.active { font-weight: 700; text-decoration: none; color: #1d2330; }
.badge { display: inline-block; padding: 1px 8px; border-radius: 10px; font-size: 12px; font-weight: 600; }
.badge.SUCCEEDED { background: var(--done-bg); color: var(--done); } .badge.RUNNING { background: var(--run-bg); color: var(--run); }
.badge.WAITING { background: var(--wait-bg); color: var(--wait); }
.badge.FAILED, .badge.TIMED_OUT, .badge.ABORTED { background: var(--fail-bg); color: var(--fail); }
.badge.mocked { background: var(--wait-bg); color: var(--wait); }
.run-layout { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 20px; align-items: start; margin-top: 14px; }
@media (max-width: 1000px) { .run-layout { grid-template-columns: minmax(0, 1fr); } }
td code { white-space: nowrap; }
.panel { background: #fff; border: 1px solid #e4e7ec; padding: 12px; border-radius: 6px; overflow: auto; }
.panel > h2:first-child { margin-top: 0; } .panel + .panel { margin-top: 14px; }
td.at, td.run { white-space: nowrap; }
td code.payload { white-space: pre-wrap; overflow-wrap: anywhere; }
.facts td:first-child { color: #5b6474; width: 120px; }
.callout { background: var(--wait-bg); border: 1px solid #f0d48a; padding: 10px 14px; border-radius: 6px; margin-bottom: 14px; }
.callout.error { background: var(--fail-bg); border-color: #f3b4ae; }
.callout.warning ul { margin: 6px 0 0; padding-left: 18px; }
.notice { background: var(--done-bg); border: 1px solid #b5dcb8; padding: 8px 12px; border-radius: 6px; margin-bottom: 12px; }
.legend { display: flex; flex-wrap: wrap; gap: 6px 12px; max-width: 420px; margin: 8px 0 0; padding: 0; list-style: none; font-size: 12px; }
.legend .swatch { display: inline-block; width: 14px; height: 14px; border-radius: 3px; vertical-align: -3px; margin-right: 4px; border: 2px solid; }
.state-graph .edge { fill: none; stroke: #98a1b2; stroke-width: 1.5; } .state-graph .edge-catch { stroke-dasharray: 4 3; }
.state-graph marker path { fill: #98a1b2; }
.state-graph rect { stroke-width: 2; }
.state-graph text { font: 12px system-ui, sans-serif; text-anchor: middle; fill: #1d2330; }
.state-graph text.type { font-size: 10px; fill: #5b6474; }
.state-graph .edge-label text { font-size: 10px; fill: #5b6474; paint-order: stroke; stroke: #f6f7f9; stroke-width: 3px; stroke-linejoin: round; }
.state-graph .edge-label-default text { font-style: italic; }
form.start textarea { display: block; width: 100%; font: 12px/1.4 ui-monospace, SFMono-Regular, Menlo, monospace; }
.state-graph .terminal circle { fill: #1d2330; } .state-graph .terminal text { text-anchor: start; font-size: 11px; fill: #5b6474; }
.state-graph .end-marker line { stroke: #98a1b2; stroke-width: 1.5; } .state-graph .end-marker circle { fill: #1d2330; } .state-graph .end-marker circle.ring { fill: #fff; stroke: #1d2330; stroke-width: 1.5; }
.state-graph .end-marker text { text-anchor: start; font-size: 11px; fill: #5b6474; }
.status-done rect, .swatch.status-done { fill: var(--done-bg); background: var(--done-bg); stroke: var(--done); border-color: var(--done); }
.status-running rect, .swatch.status-running { fill: var(--run-bg); background: var(--run-bg); stroke: var(--run); border-color: var(--run); }
.status-waiting rect, .swatch.status-waiting { fill: var(--wait-bg); background: var(--wait-bg); stroke: var(--wait); border-color: var(--wait); }
.status-failed rect, .swatch.status-failed { fill: var(--fail-bg); background: var(--fail-bg); stroke: var(--fail); border-color: var(--fail); }
.status-skipped rect, .swatch.status-skipped { fill: var(--skip-bg); background: var(--skip-bg); stroke: var(--skip); border-color: var(--skip); stroke-dasharray: 5 3; border-style: dashed; }
.status-not-run rect, .swatch.status-not-run { fill: var(--none-bg); background: var(--none-bg); stroke: var(--none); border-color: var(--none); }
tr.redrive-mark td { background: var(--skip-bg); color: var(--skip); font-weight: 600; }
button { font: inherit; padding: 4px 12px; border-radius: 4px; border: 1px solid #1f5fbf; background: #1f5fbf; color: #fff; cursor: pointer; }
.muted { color: #5b6474; }
form.inline { display: inline; margin: 0 4px 0 0; }
form.search { display: flex; flex-wrap: wrap; gap: 6px 12px; align-items: end; margin-bottom: 8px; }
form.search label { display: flex; flex-direction: column; font-size: 12px; color: #5b6474; }
form.search input { font: inherit; padding: 3px 6px; min-width: 0; max-width: 100%; }
.list-bar { display: flex; flex-wrap: wrap; gap: 4px 18px; align-items: baseline; } .list-bar p { margin: 6px 0; }
.list-bar .count { font-weight: 600; } .pages a { margin-right: 10px; }
button.approve { color: var(--done); } button.reject, button.stop { color: var(--fail); }
@media (max-width: 700px) { header { flex-wrap: wrap; gap: 6px 14px; } main { padding: 12px 10px; }
  td code, .facts td, .timeline td { white-space: normal; overflow-wrap: anywhere; } .facts td:first-child { width: auto; }
  /* A wide table scrolls inside itself: the page never scrolls sideways. */
  table { display: block; overflow-x: auto; } }
.events-link { font-size: 13px; font-weight: 400; margin-left: 10px; }
.state-link:hover rect, .state-link:focus rect { stroke-width: 3; }
.timeline td code, .tool-calls td code { white-space: normal; overflow-wrap: anywhere; }
.model-turn pre { max-height: 400px; white-space: pre-wrap; overflow-wrap: anywhere; }
.callout details pre { white-space: pre-wrap; overflow-wrap: anywhere; }
pre.email-body { white-space: pre-wrap; overflow-wrap: anywhere; max-height: 160px; margin-top: 4px; }
table.outbox td.body { min-width: 16em; } table.outbox td code { white-space: normal; overflow-wrap: anywhere; }
`);

/** Options of {@link renderPage}. */
export interface PageOptions {
  readonly title: string;
  /** The nav entry to mark active (`/`, `/approvals`...). */
  readonly active: string;
  /** Reload the page every this many seconds (a run still moving). @default no reload */
  readonly refreshSeconds?: number;
  /** Where the reload goes. @default the page's own address */
  readonly refreshUrl?: string;
}

/** A whole console page: head, navigation, body. */
export function renderPage(options: PageOptions, body: SafeHtml): string {
  const nav = CONSOLE_NAV.map(
    (n) => html`<a href="${n.href}" class="${n.href === options.active ? 'active' : ''}">${n.label}</a>`,
  );
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
${options.refreshSeconds ? html`<meta http-equiv="refresh" content="${options.refreshSeconds}${options.refreshUrl ? `; url=${options.refreshUrl}` : ''}">` : ''}
<title>${options.title} · Autosave console</title><style>${STYLE}</style></head>
<body><header><span class="brand">Autosave</span>${nav}</header><main>${body}</main></body></html>`.toString();
}
