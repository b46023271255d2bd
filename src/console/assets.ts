// The console's only stylesheet and script, served from /console/assets with long caching. Kept as strings in a
// module so `tsc` alone ships them (the build copies no other files). Nothing is fetched from elsewhere.

export const STYLE = `
:root {
  color-scheme: light dark;
  --bg: #f6f7f9; --panel: #ffffff; --text: #161a21; --muted: #4f5866; --line: #dfe3e8; --accent: #3a4fd7;
  --accent-text: #ffffff; --accent-soft: #eceffe; --ok: #0b6b3a; --ok-bg: #e2f5ea; --warn: #7a4b00; --warn-bg: #fff1d6;
  --bad: #a1162b; --bad-bg: #fde7ea; --code-bg: #f1f3f6; --shadow: 0 1px 2px rgba(16, 24, 40, .06);
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  font-size: 15px; line-height: 1.45;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #0e1116; --panel: #161b22; --text: #e6e9ee; --muted: #a4adba; --line: #2b323c; --accent: #8b9bff;
    --accent-text: #0e1116; --accent-soft: #1f2540; --ok: #6fdc9f; --ok-bg: #12301f; --warn: #f5c46b; --warn-bg: #33270d;
    --bad: #ff9aa8; --bad-bg: #3a1820; --code-bg: #0b0e13; --shadow: none;
  }
}
* { box-sizing: border-box; }
html { scrollbar-gutter: stable; }
body { margin: 0; background: var(--bg); color: var(--text); }
a { color: var(--accent); }
a:focus-visible, button:focus-visible, input:focus-visible, select:focus-visible, textarea:focus-visible,
summary:focus-visible, [tabindex]:focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
.skip { position: absolute; left: -9999px; top: 0; }
.skip:focus { left: 8px; top: 8px; z-index: 10; background: var(--panel); padding: 6px 10px; }
.top { display: flex; align-items: center; gap: 16px; height: 56px; padding: 0 20px; background: var(--panel);
  border-bottom: 1px solid var(--line); position: sticky; top: 0; z-index: 5; }
.brand { font-weight: 700; letter-spacing: -.01em; color: var(--text); text-decoration: none; display: flex;
  align-items: center; gap: 8px; white-space: nowrap; }
.brand .logo { width: 22px; height: 22px; border-radius: 6px; background: linear-gradient(135deg, #3a4fd7, #17a398); }
.tag { font-size: 12px; font-weight: 600; color: var(--warn); background: var(--warn-bg); padding: 2px 8px;
  border-radius: 999px; }
.top .spacer { flex: 1; }
.clock { font-variant-numeric: tabular-nums; font-size: 13px; color: var(--muted); white-space: nowrap; }
.clock strong { color: var(--text); font-weight: 600; }
.shell { display: grid; grid-template-columns: 200px minmax(0, 1fr); min-height: calc(100vh - 56px); }
nav.side { border-right: 1px solid var(--line); padding: 16px 10px; background: var(--panel); }
nav.side ul { list-style: none; margin: 0; padding: 0; display: flex; flex-direction: column; gap: 2px; }
nav.side a { display: block; padding: 8px 12px; border-radius: 8px; color: var(--text); text-decoration: none;
  font-weight: 500; }
nav.side a:hover { background: var(--bg); }
nav.side a[aria-current="page"] { background: var(--accent-soft); color: var(--accent); }
main { padding: 24px 28px 48px; max-width: 1180px; width: 100%; }
h1 { font-size: 22px; margin: 0 0 18px; letter-spacing: -.01em; }
h2 { font-size: 16px; margin: 0 0 12px; }
h3 { font-size: 14px; margin: 16px 0 8px; }
.grid { display: grid; gap: 16px; grid-template-columns: repeat(auto-fit, minmax(min(260px, 100%), 1fr)); margin-bottom: 16px; }
.panel { background: var(--panel); border: 1px solid var(--line); border-radius: 12px; padding: 18px;
  box-shadow: var(--shadow); margin-bottom: 16px; min-width: 0; }
.panel > h2:first-child { display: flex; align-items: center; justify-content: space-between; gap: 8px; }
.stat .label { color: var(--muted); font-size: 13px; }
.stat .value { font-size: 28px; font-weight: 650; font-variant-numeric: tabular-nums; letter-spacing: -.02em; }
.stat .sub { color: var(--muted); font-size: 13px; margin-top: 4px; }
.mono, code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 13px; }
.address { word-break: break-all; }
pre { background: var(--code-bg); border: 1px solid var(--line); border-radius: 8px; padding: 12px; overflow: auto;
  margin: 8px 0 0; max-height: 420px; }
.table-wrap { overflow-x: auto; }
table { width: 100%; border-collapse: collapse; font-size: 14px; }
th, td { text-align: left; padding: 9px 10px; border-bottom: 1px solid var(--line); vertical-align: middle; }
th { color: var(--muted); font-weight: 600; font-size: 12px; text-transform: uppercase; letter-spacing: .04em; }
tbody tr:last-child td { border-bottom: 0; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.nowrap { white-space: nowrap; }
.empty { color: var(--muted); padding: 16px 0; }
.badge { display: inline-block; font-size: 12px; font-weight: 600; padding: 2px 8px; border-radius: 999px;
  background: var(--code-bg); color: var(--muted); white-space: nowrap; }
.badge.ok { background: var(--ok-bg); color: var(--ok); }
.badge.warn { background: var(--warn-bg); color: var(--warn); }
.badge.bad { background: var(--bad-bg); color: var(--bad); }
form.stack { display: grid; gap: 12px; }
form.row { display: flex; flex-wrap: wrap; gap: 12px; align-items: end; }
.field { display: grid; gap: 4px; min-width: 0; }
.field label, .check { font-size: 13px; font-weight: 600; }
.check { display: flex; align-items: center; gap: 8px; }
.hint { font-size: 12px; color: var(--muted); }
input, select, textarea { font: inherit; color: var(--text); background: var(--panel); border: 1px solid var(--line);
  border-radius: 8px; padding: 8px 10px; min-height: 38px; width: 100%; }
input[type=checkbox] { width: 18px; height: 18px; min-height: 0; accent-color: var(--accent); }
textarea { min-height: 110px; }
form.row .field { flex: 1 1 160px; max-width: 420px; }
button, .button { font: inherit; font-weight: 600; font-size: 14px; border-radius: 8px; padding: 8px 14px;
  min-height: 38px; border: 1px solid var(--accent); background: var(--accent); color: var(--accent-text);
  cursor: pointer; text-decoration: none; display: inline-flex; align-items: center; justify-content: center;
  white-space: nowrap; }
button.secondary, .button.secondary { background: var(--panel); color: var(--text); border-color: var(--line); }
button.danger { background: var(--panel); color: var(--bad); border-color: var(--bad); }
button.small { padding: 4px 10px; min-height: 30px; font-size: 13px; }
.actions { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; }
.actions form { margin: 0; }
dl.props + .actions, .stack + .actions, .stack + h3 { margin-top: 16px; }
.amount { font-variant-numeric: tabular-nums; font-weight: 600; }
.flash { border-radius: 10px; padding: 12px 14px; margin-bottom: 16px; border: 1px solid var(--line);
  background: var(--panel); }
.flash.ok { border-color: var(--ok); background: var(--ok-bg); }
.flash.error { border-color: var(--bad); background: var(--bad-bg); }
.flash strong { display: block; }
.flash .secret { display: flex; gap: 8px; flex-wrap: wrap; margin-top: 6px; align-items: baseline; }
.flash .secret code { word-break: break-all; font-size: 14px; font-weight: 600; }
dl.props { display: grid; grid-template-columns: max-content 1fr; gap: 8px 16px; margin: 0; }
dl.props dt { color: var(--muted); font-size: 13px; }
dl.props dd { margin: 0; min-width: 0; word-break: break-word; }
.cards { display: grid; gap: 12px; grid-template-columns: repeat(auto-fill, minmax(min(220px, 100%), 1fr)); }
.card-tile { display: block; border-radius: 14px; padding: 16px; color: #fff; text-decoration: none; min-height: 132px;
  background: linear-gradient(135deg, #2b3a9e, #1b7f8c); }
.card-tile.frozen { background: linear-gradient(135deg, #4c5566, #2d333d); }
.card-tile.cancelled { background: linear-gradient(135deg, #6b3440, #3e2228); }
.card-tile .head { display: flex; align-items: baseline; justify-content: space-between; gap: 10px; }
.card-tile .alias { font-weight: 600; min-width: 0; overflow-wrap: anywhere; }
.card-tile .pan { font-family: ui-monospace, Menlo, Consolas, monospace; letter-spacing: .12em; margin: 16px 0 8px; }
.card-tile .bal { font-size: 20px; font-weight: 650; font-variant-numeric: tabular-nums; }
.card-tile .st { flex: none; font-size: 11px; font-weight: 700; letter-spacing: .06em; }
details.item { border: 1px solid var(--line); border-radius: 10px; margin-bottom: 8px; background: var(--panel); }
details.item > summary { cursor: pointer; padding: 10px 12px; display: flex; flex-wrap: wrap; gap: 8px 14px;
  align-items: center; list-style: none; }
details.item > summary::-webkit-details-marker { display: none; }
details.item > summary::before { content: "▸"; color: var(--muted); }
details.item[open] > summary::before { content: "▾"; }
details.item > .body { padding: 0 12px 12px; }
details.item > summary time { color: var(--muted); font-size: 13px; }
.pager { display: flex; gap: 8px; align-items: center; justify-content: flex-end; margin-top: 12px; flex-wrap: wrap; }
.pager .muted, .muted { color: var(--muted); font-size: 13px; }
.signin { max-width: 420px; margin: 10vh auto; padding: 0 16px; }
.signin .brand { margin-bottom: 18px; font-size: 18px; }
.split { display: grid; gap: 16px; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); }
.preview { display: grid; grid-template-columns: max-content auto; gap: 4px 16px; font-variant-numeric: tabular-nums;
  margin: 8px 0 12px; }
.preview dd { margin: 0; text-align: right; }
.preview dt { color: var(--muted); }
@media (max-width: 760px) {
  .top { padding: 8px 12px; gap: 4px 10px; height: auto; flex-wrap: wrap; }
  .top .clock { order: 3; width: 100%; }
  .top .tag { display: none; }
  .shell { grid-template-columns: minmax(0, 1fr); min-height: 0; }
  nav.side { border-right: 0; border-bottom: 1px solid var(--line); padding: 8px; overflow-x: auto; }
  nav.side ul { flex-direction: row; gap: 4px; }
  nav.side a { padding: 6px 10px; white-space: nowrap; }
  main { padding: 16px 12px 40px; }
  .split { grid-template-columns: 1fr; }
  .stat .value { font-size: 24px; }
  th, td { padding: 8px 6px; }
  .hide-sm { display: none; }
}
`;

/**
 * Live regions: an element with `data-live="URL"` is refreshed from that URL (an HTML fragment) every few seconds
 * while the tab is visible, keeping open <details> open and leaving it alone while focus is inside it.
 */
export const SCRIPT = `(function () {
  // Live regions: each polls its src and replaces its content when the HTML changed. A reader is never in the way of
  // an update, nor an update in the reader's: what has focus (a link, the scrollable table) keeps it, open details
  // stay open, scrolled tables stay scrolled; only typing in a field or a text selection inside the region holds the
  // update until it is over. A page shown again (tab back in view, back-forward cache) updates at once.
  var FOCUSABLE = 'a[href], button, summary, [tabindex], input, select, textarea';
  function typing(region) {
    var a = document.activeElement;
    return !!a && region.contains(a) && /^(INPUT|SELECT|TEXTAREA)$/.test(a.tagName);
  }
  function selecting(region) {
    var s = window.getSelection ? window.getSelection() : null;
    return !!s && !s.isCollapsed && s.rangeCount > 0 && region.contains(s.getRangeAt(0).commonAncestorContainer);
  }
  /** What has focus in the region, as the new HTML can have it too: its id, href or label, else its place. */
  function focusKey(region) {
    var a = document.activeElement;
    if (!a || a === document.body || !region.contains(a)) return null;
    var all = Array.prototype.slice.call(region.querySelectorAll(FOCUSABLE));
    return { id: a.id, href: a.getAttribute('href'), label: a.getAttribute('aria-label'), index: all.indexOf(a) };
  }
  function refocus(region, key) {
    if (!key) return;
    var all = region.querySelectorAll(FOCUSABLE);
    var found = null;
    for (var i = 0; i < all.length && !found; i++) {
      var el = all[i];
      if ((key.id && el.id === key.id) || (key.href && el.getAttribute('href') === key.href) ||
          (!key.href && key.label && el.getAttribute('aria-label') === key.label)) found = el;
    }
    found = found || all[key.index];
    if (found) found.focus({ preventScroll: true });
  }
  document.querySelectorAll('[data-live]').forEach(function (region) {
    var last = null;
    var timer = null;
    var busy = false;
    function later() {
      clearTimeout(timer);
      timer = setTimeout(tick, Number(region.getAttribute('data-every') || 2000));
    }
    function tick() {
      clearTimeout(timer);
      if (busy) return;
      if (document.hidden || typing(region) || selecting(region)) return later();
      busy = true;
      fetch(region.getAttribute('data-live'), { credentials: 'same-origin', headers: { Accept: 'text/html' } })
        .then(function (res) { return res.ok ? res.text() : null; })
        .then(function (html) {
          if (html === null || html === last || typing(region) || selecting(region)) return;
          var open = {};
          region.querySelectorAll('details[open][id]').forEach(function (d) { open[d.id] = true; });
          var scrolled = Array.prototype.map.call(region.querySelectorAll('.table-wrap'), function (w) {
            return w.scrollLeft;
          });
          var key = focusKey(region);
          region.innerHTML = html;
          region.querySelectorAll('details[id]').forEach(function (d) { if (open[d.id]) d.open = true; });
          region.querySelectorAll('.table-wrap').forEach(function (w, i) { if (scrolled[i]) w.scrollLeft = scrolled[i]; });
          refocus(region, key);
          last = html;
          region.setAttribute('data-updated', String(Date.now()));
        })
        .catch(function () {})
        .then(function () { busy = false; later(); });
    }
    document.addEventListener('visibilitychange', function () { if (!document.hidden) tick(); });
    window.addEventListener('pageshow', function (e) { if (e.persisted) tick(); });
    tick();
  });
})();
`;
