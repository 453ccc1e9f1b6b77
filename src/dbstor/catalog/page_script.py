"""The index page's own script (inline, no network): filters by column, pages of rows,
runs selected and set side by side against a chosen baseline (= 100); through `dbstor
serve` or when `dbstor index --compare` wrote it, the full comparison report opens;
otherwise the page shows the command that writes it. The address's fragment can carry filters and a selection (#target=FC&select=A,B)."""

SCRIPT = r"""
(function () {
  const DATA = JSON.parse(document.getElementById('index-data').textContent);
  const rows = DATA.entries.filter(e => e.kind === 'run');
  const PAGE = 100;
  const cols = ['created_at', 'target', 'engine', 'workload', 'load_kind', 'tags', 'host', 'status'];
  const filters = {};
  const selected = new Set();
  let page = 0;
  const body = document.getElementById('runs-body');
  const info = document.getElementById('page-info');
  const fmt = v => (v === null || v === undefined) ? '\u2013' :
    (typeof v === 'number' ? v.toLocaleString('en-US', {maximumSignificantDigits: 4}) : String(v));
  const tagText = r => Object.entries(r.tags || {}).map(([k, v]) => k + '=' + v).join(' ');
  const cell = (r, c) => c === 'tags' ? tagText(r) : (c === 'created_at' ? String(r[c] || '').slice(0, 16).replace('T', ' ') : fmt(r[c]));
  const esc = s => String(s).replace(/[&<>"']/g, ch => ({'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;'}[ch]));
  const numeric = ['peak', 'knee'];
  // a figure's filter: ">20000", "<=5k", or text found in the number as written
  function figureMatches(value, filter) {
    const m = filter.replace(/[\s,]/g, '').match(/^([<>]=?)(\d+(?:\.\d+)?)(k?)$/);
    if (!m) return fmt(value).toLowerCase().includes(filter);
    if (value === null || value === undefined) return false;
    const bound = parseFloat(m[2]) * (m[3] ? 1000 : 1);
    return {'<': value < bound, '<=': value <= bound, '>': value > bound, '>=': value >= bound}[m[1]];
  }
  // tags: every word of the filter; "key=value" is one of the run's tags exactly, "key=" a key it has,
  // any other word is found in one of them
  function tagsMatch(r, filter) {
    const tags = tagText(r).toLowerCase().split(' ');
    const one = w => w.endsWith('=') ? tags.some(t => t.startsWith(w)) :
      (w.includes('=') ? tags.includes(w) : tags.some(t => t.includes(w)));
    return filter.split(/\s+/).every(one);
  }
  const matches = (r, c) => !filters[c] || (c === 'tags' ? tagsMatch(r, filters[c]) : cell(r, c).toLowerCase().includes(filters[c]));
  function shown() {
    return rows.filter(r => cols.every(c => matches(r, c)) &&
      numeric.every(c => !filters[c] || figureMatches(r[c], filters[c])));
  }
  function render() {
    const list = shown();
    const pages = Math.max(1, Math.ceil(list.length / PAGE));
    page = Math.min(page, pages - 1);
    body.innerHTML = list.slice(page * PAGE, page * PAGE + PAGE).map(r =>
      '<tr><td><input type="checkbox" data-folder="' + esc(r.folder) + '"' + (selected.has(r.folder) ? ' checked' : '') + '></td>' +
      cols.map(c => '<td>' + esc(cell(r, c)) + '</td>').join('') +
      '<td class="num">' + esc(fmt(r.peak)) + '</td><td class="num">' + esc(fmt(r.knee)) + '</td><td>' + esc(r.unit || '') + '</td>' +
      '<td>' + (r.report ? '<a href="' + esc(r.report) + '">' + esc(r.folder) + '</a>' : esc(r.folder)) + '</td></tr>').join('');
    info.textContent = list.length + ' of ' + rows.length + ' runs, page ' + (page + 1) + ' of ' + pages;
  }
  document.querySelectorAll('input[data-filter]').forEach(input => input.addEventListener('input', () => {
    filters[input.dataset.filter] = input.value.trim().toLowerCase(); page = 0; render();
  }));
  document.getElementById('prev').addEventListener('click', () => { page = Math.max(0, page - 1); render(); });
  document.getElementById('next').addEventListener('click', () => { page += 1; render(); });
  body.addEventListener('change', ev => {
    const f = ev.target.dataset.folder; if (!f) return;
    if (ev.target.checked) selected.add(f); else selected.delete(f);
    compare();
  });
  const baseSelect = document.getElementById('baseline');
  baseSelect.addEventListener('change', () => compare(baseSelect.value));
  function compare(base) {
    const chosen = rows.filter(r => selected.has(r.folder));
    const panel = document.getElementById('compare');
    panel.hidden = chosen.length < 2;
    if (chosen.length < 2) return;
    base = base && selected.has(base) ? base : (selected.has(baseSelect.value) ? baseSelect.value : chosen[chosen.length - 1].folder);  // default: the oldest
    baseSelect.innerHTML = chosen.map(r => '<option value="' + esc(r.folder) + '"' + (r.folder === base ? ' selected' : '') + '>' + esc(r.folder) + '</option>').join('');
    const b = chosen.find(r => r.folder === base);
    const norm = (v, bv) => (v === null || bv === null || v === undefined || bv === undefined || !bv) ? '\u2013' : Math.round(v / bv * 100);
    const keys = new Set(chosen.map(r => r.key));
    document.getElementById('compare-body').innerHTML = chosen.map(r =>
      '<tr><th scope="row">' + esc(r.folder) + (r.folder === base ? ' (baseline)' : '') + '</th>' +
      ['peak', 'knee', 'latency_at_load'].map(k => '<td class="num">' + esc(fmt(r[k])) + '</td><td class="num">' + esc(norm(r[k], b[k])) + '</td>').join('') + '</tr>').join('');
    document.getElementById('compare-note').textContent = keys.size > 1 ?
      'These runs are not the same measurement (' + keys.size + ' comparison keys): compare with care.' : 'Same comparison key: ' + [...keys][0];
    const others = chosen.filter(r => r.folder !== base).map(r => r.folder);
    const args = [base, ...others];
    const link = document.getElementById('compare-link');
    const written = (DATA.comparisons || []).find(c => c.baseline === base &&
      c.runs.length === args.length && c.runs.every(n => selected.has(n)));
    if (written) {
      link.innerHTML = '<a id="open-comparison" href="' + esc(written.report) + '">open the comparison report</a> (written by dbstor index)';
    } else if (location.protocol.startsWith('http')) {
      link.innerHTML = '<a id="open-comparison" href="compare?runs=' + args.map(encodeURIComponent).join(',') + '&baseline=' + encodeURIComponent(base) + '">open the comparison report</a>';
    } else {
      link.innerHTML = 'The comparison report of these runs is not written yet: <code>dbstor index ' + esc(DATA.root) +
        ' --compare ' + args.map(esc).join(',') + '</code> writes it and links it here (or <code>dbstor serve ' +
        esc(DATA.root) + '</code> opens any selection).';
    }
  }
  // index.html#target=FC&tags=fw=9&select=A,B&baseline=A: a filtered view and a selection to share
  const wanted = new URLSearchParams(location.hash.slice(1));
  [...cols, ...numeric].forEach(c => {
    const v = wanted.get(c); if (!v) return;
    filters[c] = v.toLowerCase();
    const input = document.querySelector('input[data-filter="' + c + '"]'); if (input) input.value = v;
  });
  (wanted.get('select') || '').split(',').filter(f => rows.some(r => r.folder === f)).forEach(f => selected.add(f));
  render();
  compare(wanted.get('baseline'));
})();
"""
