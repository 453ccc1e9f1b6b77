"""The report's stylesheet, embedded in every report so the file stands alone."""

CSS = """
:root { --ink: #1f2328; --muted: #59636e; --line: #d8dee4; --soft: #f6f8fa;
  --blue: #0072B2; --good: #1a7f37; --warn: #9a6700; --bad: #b00020; }
* { box-sizing: border-box; }
body { margin: 0; color: var(--ink); background: #fff; line-height: 1.45;
  font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
main { max-width: 1140px; margin: 0 auto; padding: 24px 28px 48px; }
h1 { font-size: 26px; margin: 0 0 4px; }
h2 { font-size: 20px; margin: 36px 0 10px; padding-bottom: 4px; border-bottom: 2px solid var(--line); }
h3 { font-size: 16px; margin: 22px 0 8px; }
h4 { font-size: 13px; margin: 0 0 4px; text-transform: uppercase; letter-spacing: .04em;
  color: var(--muted); }
p { margin: 6px 0 10px; }
.meta { color: var(--muted); font-size: 13px; margin: 0 0 16px; }
.howto { background: var(--soft); border: 1px solid var(--line); border-radius: 6px;
  padding: 10px 18px; margin: 12px 0 18px; font-size: 14px; }
.howto h2 { border: 0; font-size: 15px; margin: 6px 0 4px; padding: 0; }
.howto ul { margin: 4px 0 6px; padding-left: 20px; }
.howto li { margin: 3px 0; }
.callout { border-left: 5px solid var(--blue); background: #eef6fc; padding: 8px 14px;
  margin: 8px 0; border-radius: 0 4px 4px 0; }
.callout.warn { border-color: #d4a72c; background: #fff8c5; }
.callout.bad { border-color: var(--bad); background: #ffebe9; }
.callout.memory { border-color: #d4760a; background: #fff1e0; font-size: 15.5px; }
.callout.memory b.lead { color: #8a3b00; }
ul.messages { margin: 0; padding-left: 16px; font-size: 12px; }
section.overlay figure { margin-top: 4px; }
section.overlay figcaption { font-size: 14px; color: var(--ink); max-width: 760px; }
section.overlay figcaption span { color: var(--muted); font-size: 13px; }
.facts.engine { max-width: 760px; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(300px, 1fr)); gap: 12px; }
.card { border: 1px solid var(--line); border-radius: 6px; padding: 10px 14px; }
.card h3 { margin: 0 0 4px; }
.card p { margin: 3px 0; font-size: 14px; }
.badge { display: inline-block; font-size: 12px; font-weight: 600; padding: 1px 8px;
  border-radius: 10px; vertical-align: middle; margin-left: 6px; border: 1px solid currentColor; }
.badge.complete { color: var(--good); }
.badge.interrupted, .badge.running { color: var(--warn); }
.badge.failed { color: var(--bad); }
figure { margin: 14px 0 20px; }
figcaption { color: var(--muted); font-size: 13px; margin-top: 2px; max-width: 760px; }
svg.chart { display: block; width: 100%; max-width: 760px; height: auto; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; font-size: 12.5px; margin: 6px 0 12px; }
th, td { padding: 4px 7px; border-bottom: 1px solid var(--line); text-align: left;
  vertical-align: top; }
thead th { background: var(--soft); font-weight: 600; }
/* a header wraps between its words rather than push the table past the page */
thead th { white-space: normal; overflow-wrap: normal; }
tbody tr:nth-child(even) { background: #fbfcfd; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.over { color: var(--bad); font-weight: 600; }
td.within { color: var(--good); }
tr.failed td { color: var(--bad); }
table.points tbody th, .run.database tbody th { white-space: nowrap; }
code.opt { white-space: nowrap; font-size: 0.95em; }
.flag-from-memory { background: #ffd8a8; }
.spread { font-size: 11.5px; color: var(--muted); white-space: nowrap; }
.point-notes { font-size: 13px; color: var(--muted); margin: 0 0 12px; padding-left: 20px; }
th .unit { font-weight: 400; color: var(--muted); font-size: 11.5px; }
.flag { display: inline-block; font-size: 11.5px; padding: 0 6px; margin: 1px 3px 1px 0;
  border-radius: 3px; background: #eaeef2; white-space: nowrap; }
.flag-failed { background: #ffcecb; }
.flag-saturated { background: #ffe7c2; }
.flag-not-steady, .flag-noisy { background: #fff1a8; }
.legend { display: grid; grid-template-columns: max-content 1fr; gap: 4px 12px; font-size: 13px; }
.legend dd { margin: 0; }
.factors li { margin: 3px 0; }
.fact-grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(320px, 1fr)); gap: 6px 18px; }
.facts table { width: 100%; margin: 0 0 10px; }
.facts th { width: 38%; font-weight: 600; color: var(--muted); }
.facts td { word-break: break-word; }
footer { margin-top: 40px; color: var(--muted); font-size: 12px; border-top: 1px solid var(--line);
  padding-top: 8px; }
ul.findings { font-size: 16px; padding-left: 22px; margin: 8px 0 14px; }
ul.findings li { margin: 6px 0; }
ul.findings a.src { font-size: 12px; color: var(--blue); margin-left: 4px; }
table.bom th[scope="row"], table.layout th[scope="row"] { color: var(--muted); font-weight: 600;
  white-space: nowrap; }
table.bom td { min-width: 140px; }
table.facts th { color: var(--muted); font-weight: 600; padding-right: 14px; }
table.walk td.source { color: var(--muted); font-size: 11.5px; max-width: 360px; }
.tool table th.l, .tool table td.l { text-align: left; }
.tool table td { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.tool table td.l.r { white-space: normal; }
.tool tr.chosen { background: #e6f4ea; }
.tool tr.poor td { color: var(--muted); }
.tool .note, ul.notes { font-size: 13px; color: var(--muted); }
p.needs { border-left: 4px solid #d4a72c; padding-left: 10px; }
section.doc > section.run > h2, section.doc .run-part > section > h2 { font-size: 18px;
  border-bottom: 1px solid var(--line); }
@media print {
  @page { size: A4; margin: 14mm 12mm; }
  main { max-width: none; padding: 0; }
  body { font-size: 10pt; }
  h2, h3, h4 { break-after: avoid; }
  /* sections flow on from one another (a one-line section never takes a page of its
     own, no page is left mostly empty); the results and the appendix open a page */
  main > section#results, main > section#appendix { break-before: page; }
  .run-part > section > h2, section.doc > h2, section.comparison > h2 { break-after: avoid; }
  figure, svg, .card, .callout, tr, .facts, .howto { break-inside: avoid; }
  /* the appendix's facts flow in two columns, a long block running on (a grid row kept
     whole across a page break left most of a page empty) */
  .fact-grid { display: block; column-count: 2; column-gap: 18px; }
  .facts.long { break-inside: auto; }
  .scroll { overflow: visible; }
  table { font-size: 8pt; }
  th, td { padding: 2px 4px; }
  .howto { background: none; }
  a { color: inherit; text-decoration: none; }
}
"""
