// hcipico status page. Fills the header and the device table from `status` (GET api/status once, then
// the `events` stream), draws one live plot per device from `plot` events and lists the run history
// (GET api/runs). Server strings only ever go into textContent or attributes, never innerHTML.
// URLs are relative, so the page also works below a reverse proxy's path.
'use strict';
(function () {
  const REDRAW_MS = 200;          // at most ~5 plot redraws a second
  const RUNS_EVERY_MS = 10000;
  const RESYNC_MS = 30000;        // at most one stream reconnect this often to repair a plot gap
  const DASH = '\u2014';
  const FONT = 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
  const PALETTE = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd',
    '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf'];  // tab10, as in the SVG downloads
  const RAMP = [[13, 8, 135], [106, 0, 168], [177, 42, 144], [225, 100, 98], [252, 166, 54]];
  const PREFIX = { '-15': 'f', '-12': 'p', '-9': 'n', '-6': '\u00b5', '-3': 'm', '0': '', '3': 'k', '6': 'M', '9': 'G', '12': 'T' };

  const $ = (id) => document.getElementById(id);
  const isNum = (v) => typeof v === 'number' && Number.isFinite(v);
  const plots = new Map();  // device name -> plot state (see plotFor)
  const trends = new Map(); // device name -> { card, run (the analysed run shown), busy }
  const TREND_RUNS = 30;
  let streamed = false;     // a status arrived on the stream (newer than the initial fetch)
  let lastStatusAt = 0;     // local clock of the last status
  let runIds = null;        // device -> its current run's id, to notice runs starting and ending
  let source = null, lastResync = 0;

  // GET a path relative to the page. Without the user:password@ a typed URL may carry (fetch refuses
  // such URLs; the browser still sends the credentials it has for the page).
  function get(path) {
    const url = new URL(path, document.baseURI);
    url.username = url.password = '';
    return fetch(url, { cache: 'no-store' }).then((r) => { if (!r.ok) throw new Error('HTTP ' + r.status); return r; });
  }

  // ---- DOM and formatting helpers ----
  const clone = (id) => $(id).content.firstElementChild.cloneNode(true);
  function setText(node, text) {
    text = text === null || text === undefined ? '' : String(text);
    if (node.textContent !== text) node.textContent = text;
  }
  function setAttr(node, name, value) {
    if (node.getAttribute(name) !== String(value)) node.setAttribute(name, value);
  }
  function badge(node, state, text) {
    setText(node, text || state || DASH);
    setAttr(node, 'class', 'badge state-' + String(state || 'unknown').replace(/[^a-z]/gi, ''));
  }
  const fmtInt = (n) => (isNum(n) ? n.toLocaleString() : DASH);
  const minus = (s) => s.replace(/^-/, '\u2212');
  function fmtBytes(n) {
    if (!isNum(n)) return DASH;
    const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
    let i = 0;
    for (; n >= 1024 && i < units.length - 1; i++) n /= 1024;
    return (i ? n.toFixed(n < 100 ? 1 : 0) : n) + '\u00a0' + units[i];
  }
  function fmtDuration(s) {
    if (!isNum(s) || s < 0) return DASH;
    if (s < 60) return s.toFixed(s < 10 ? 1 : 0) + ' s';
    const m = Math.floor(s / 60), h = Math.floor(m / 60);
    if (m < 60) return m + ' min ' + Math.floor(s % 60) + ' s';
    return h < 24 ? h + ' h ' + (m % 60) + ' min' : Math.floor(h / 24) + ' d ' + (h % 24) + ' h';
  }
  function fmtTime(t) {  // local time; with the date when not today
    if (!isNum(t)) return DASH;
    const d = new Date(t * 1000), p = (v) => String(v).padStart(2, '0');
    const time = p(d.getHours()) + ':' + p(d.getMinutes()) + ':' + p(d.getSeconds());
    if (d.toDateString() === new Date().toDateString()) return time;
    return d.getFullYear() + '-' + p(d.getMonth() + 1) + '-' + p(d.getDate()) + ' ' + time;
  }
  // The SI prefix (as a power of ten) for values of this magnitude: none for °, % or no unit,
  // and seconds never become kiloseconds.
  function prefixExp(unit, magnitude) {
    if (!unit || unit === '\u00b0' || unit === '%' || !(magnitude > 0)) return 0;
    const e = Math.floor(Math.log10(magnitude) / 3 + 1e-9) * 3;
    return Math.max(-15, Math.min(unit === 's' ? 0 : 12, e));
  }
  function fmtSI(v, unit) {  // one value with its own prefix (log axis ticks): 1 µA, 10 µA, 100 µA, 1 mA
    if (!unit && (Math.abs(v) >= 1e5 || Math.abs(v) < 1e-3)) return minus(v.toExponential(0));
    const e = prefixExp(unit, Math.abs(v));
    const s = minus(String(Number((v / 10 ** e).toPrecision(3))));
    return unit ? s + ' ' + PREFIX[e] + unit : s;
  }

  // ---- header and device table ----
  function applyStatus(st) {
    if (!st || typeof st !== 'object') return;
    lastStatusAt = Date.now();
    setText($('rig-name'), st.rig || 'hcipico');
    document.title = (st.rig || 'hcipico') + ' \u2013 rig status';
    setText($('version'), st.version || '');
    const j = st.journal || {};
    setText($('journal-size'), fmtBytes(j.size_bytes));
    setText($('journal-packages'), fmtInt(j.committed_packages));
    const problem = j.failed ? 'failed: ' + j.failed
      : j.stalled_seconds >= 5 ? 'stalled for ' + fmtDuration(j.stalled_seconds) : '';
    $('journal-problem-box').hidden = !problem;
    setText($('journal-problem'), problem);
    const f = st.forwarder, on = !!(f && f.enabled);
    setAttr($('forwarder'), 'data-state', on ? f.state || 'unknown' : 'off');
    setAttr($('forwarder'), 'title', on && f.target ? f.target : '');
    badge($('fwd-state'), on ? f.state : 'off', on ? f.state : 'not configured');
    const lagTime = on && isNum(f.lag_seconds) ? ' / ' + fmtDuration(f.lag_seconds) : '';
    setText($('fwd-lag'), on ? 'lag ' + fmtInt(f.lag_packages) + ' pkg' + lagTime : '');
    setText($('fwd-errors'), on ? 'errors ' + fmtInt(f.errors) : '');
    setText($('fwd-error'), on && f.last_error ? f.last_error : '');
    setAttr($('fwd-error'), 'title', on && f.last_error ? f.last_error : '');
    applyDevices(Array.isArray(st.devices) ? st.devices : []);
    offerDevices((Array.isArray(st.devices) ? st.devices : []).map((d) => d && d.name).filter((n) => typeof n === 'string'));
    setText($('updated'), 'Status of ' + fmtTime(isNum(st.time) ? st.time : Date.now() / 1000) + '.');
  }

  function applyDevices(devices) {
    const body = $('devices-body'), rows = new Map(), ids = new Map();
    for (const row of Array.from(body.rows)) rows.set(row.dataset.device, row);
    let changed = false;
    for (const d of devices) {
      if (!d || typeof d.name !== 'string' || ids.has(d.name)) continue;
      let row = rows.get(d.name);
      if (!row) { row = clone('device-row'); row.dataset.device = d.name; }
      if (body.rows[ids.size] !== row) body.insertBefore(row, body.rows[ids.size] || null);  // the server's order
      rows.delete(d.name);
      ids.set(d.name, null);
      const cell = (cls) => row.querySelector('.' + cls), run = d.run || null;
      setAttr(row, 'data-state', d.state || 'unknown');
      setText(cell('name'), d.name);
      setAttr(cell('name'), 'title', d.connected ? 'connected' : 'not connected');
      badge(cell('badge'), d.state);
      setText(cell('sub'), d.state_text && d.state_text !== d.state ? d.state_text : '');
      const number = run && (isNum(run.device_run) ? '#' + run.device_run : '#?');
      setText(cell('run'), run ? number + (run.title ? ' ' + run.title : '') : DASH);
      const p = run && isNum(run.progress) ? Math.max(0, Math.min(1, run.progress)) : null;
      cell('bar').hidden = p === null;
      cell('fill').style.width = ((p || 0) * 100).toFixed(1) + '%';
      setAttr(cell('bar'), 'aria-valuenow', p === null ? '' : Math.round(p * 100));
      setText(cell('pct'), p === null ? DASH : Math.floor(p * 100) + '%');
      setText(cell('packages'), fmtInt(d.packages) + (d.overflowed > 0 ? ' (' + fmtInt(d.overflowed) + ' lost)' : ''));
      setAttr(cell('packages'), 'title', 'runs ' + fmtInt(d.runs) + ': ' + fmtInt(d.complete_runs) + ' complete, '
        + fmtInt(d.incomplete_runs) + ' incomplete');
      setText(cell('reconnects'), fmtInt(d.reconnects));
      setText(cell('last-error'), d.last_error || DASH);
      setAttr(cell('last-error'), 'title', d.last_error || '');
      cell('last-error').classList.toggle('error-text', !!d.last_error);
      // What became of the cell after the last run that did not end normally; unknown is an alarm.
      setText(cell('cell-state'), d.last_cell || DASH);
      setAttr(cell('cell-state'), 'title', d.cell_unknown > 0 ? fmtInt(d.cell_unknown) + ' runs left the cell state unknown' : '');
      cell('cell-state').classList.toggle('error-text', !!d.last_cell && d.last_cell.startsWith('cell state unknown'));
      setText(cell('link'), d.link || DASH);
      setText(cell('rssi'), isNum(d.rssi) ? minus(String(d.rssi)) + ' dBm' : DASH);
      setText(cell('firmware'), d.firmware || DASH);
      const id = run ? String(run.id ?? run.uuid) : null;  // (a run's journal id can be missing)
      ids.set(d.name, id);
      if (runIds && runIds.get(d.name) !== id) changed = true;
      if (isNum(d.analysed_run)) trendFor(d.name, d.analysed_run);
      const plot = plotFor(d.name);
      if (plot.running !== !!run) { plot.running = !!run; describe(plot); }
    }
    for (const row of rows.values()) row.remove();  // gone from the rig's configuration
    for (const [name, p] of plots) if (!ids.has(name)) { p.canvas.parentNode.remove(); plots.delete(name); }
    for (const [name, t] of trends) if (!ids.has(name)) { t.card.remove(); trends.delete(name); }
    $('trends-empty').hidden = trends.size > 0;
    $('devices-empty').hidden = ids.size > 0;
    setText($('devices-empty'), 'No devices configured.');
    runIds = ids;
    if (changed) setTimeout(loadRuns, 300);  // a run began or ended: the history changed
  }

  // ---- results: per device, the series of its latest analysed runs (GET api/trend) ----
  function trendFor(name, run) {
    let t = trends.get(name);
    if (!t) {
      const card = clone('trend-card');
      card.dataset.device = name;
      $('trends').appendChild(card);
      t = { card, run: null, busy: false, data: null };
      trends.set(name, t);
      if (window.ResizeObserver) new ResizeObserver(() => drawTrend(t)).observe(card);
    }
    if (t.run === run || t.busy) return;
    t.busy = true;
    get('api/trend?limit=' + TREND_RUNS + '&device=' + encodeURIComponent(name)).then((r) => r.json())
      .then((data) => { t.run = run; t.data = data; drawTrend(t); })
      .catch(() => {})
      .finally(() => { t.busy = false; });
  }
  function fmtValue(v, unit) {
    if (!isNum(v)) return DASH;
    if (!unit) return minus(v.toPrecision(3));
    const e = prefixExp(unit, Math.abs(v));
    return minus(String(Number((v / 10 ** e).toPrecision(4)))) + ' ' + PREFIX[e] + unit;
  }
  function drawTrend(t) {
    const data = t.data;
    if (!data) return;
    const card = t.card, runs = Array.isArray(data.runs) ? data.runs : [];
    const first = runs[0], last = runs[runs.length - 1];
    setText(card.querySelector('h3'), data.device);
    setText(card.querySelector('.info'), runs.length + ' analysed run' + (runs.length === 1 ? '' : 's')
      + (first ? ' (#' + first.device_run + (runs.length > 1 ? ' \u2026 #' + last.device_run : '') + ')' : ''));
    setAttr(card, 'data-runs', runs.length);
    const body = card.querySelector('tbody');
    body.textContent = '';
    for (const s of Array.isArray(data.series) ? data.series : []) {
      const row = clone('trend-row'), values = Array.isArray(s.values) ? s.values : [];
      row.dataset.series = s.name;
      setText(row.querySelector('.trend-name'), s.name);
      let latest = null;
      for (const v of values) if (isNum(v)) latest = v;
      setText(row.querySelector('.trend-latest'), fmtValue(latest, s.unit));
      body.appendChild(row);
      const c = row.querySelector('canvas'), w = c.clientWidth, h = c.clientHeight, dpr = window.devicePixelRatio || 1;
      setAttr(c, 'aria-label', s.name + ': ' + values.filter(isNum).length + ' runs');
      if (!w || !h) continue;
      c.width = Math.round(w * dpr); c.height = Math.round(h * dpr);
      const g = c.getContext('2d');
      g.setTransform(dpr, 0, 0, dpr, 0, 0);
      const finite = values.filter(isNum);
      if (!finite.length) continue;
      let [lo, hi] = span(Math.min(...finite), Math.max(...finite), false);
      const X = (k) => 3 + (values.length > 1 ? (k / (values.length - 1)) * (w - 6) : (w - 6) / 2);
      const Y = (v) => h - 3 - ((v - lo) / (hi - lo)) * (h - 6);
      g.strokeStyle = g.fillStyle = PALETTE[0]; g.lineWidth = 1.5; g.beginPath();
      let open = false;
      values.forEach((v, k) => {
        if (!isNum(v)) { open = false; return; }
        if (open) g.lineTo(X(k), Y(v)); else g.moveTo(X(k), Y(v));
        open = true;
      });
      g.stroke();
      values.forEach((v, k) => { if (isNum(v)) g.fillRect(X(k) - 1.5, Y(v) - 1.5, 3, 3); });
    }
  }

  // ---- plots ----
  function plotFor(name) {
    let p = plots.get(name);
    if (p) return p;
    const card = clone('plot-card'), canvas = card.querySelector('canvas');
    card.dataset.device = canvas.dataset.device = name;
    $('plots').appendChild(card);
    p = { name, canvas, title: card.querySelector('h3'), info: card.querySelector('.info'), run: null,
      heading: '', x: {}, y: {}, series: [], points: 0, running: false, dirty: false };
    plots.set(name, p);
    describe(p);
    if (window.ResizeObserver) new ResizeObserver(() => markDirty(p)).observe(canvas);
    markDirty(p);
    return p;
  }

  function describe(p) {  // the card's title and point count (text, not canvas)
    setText(p.title, p.heading || p.name);
    setAttr(p.title, 'title', p.heading || p.name);
    setText(p.info, (p.running ? 'live \u00b7 ' : '') + p.points.toLocaleString() + ' points');
    setAttr(p.canvas, 'aria-label', (p.heading || p.name) + ': ' + p.points + ' points');
  }

  // A value in axis units (log10 on a log axis), or null when it cannot be drawn.
  const tr = (v, log) => (!isNum(v) ? null : !log ? v : v > 0 ? Math.log10(v) : null);

  function applyPlot(ev) {
    if (!ev || typeof ev.device !== 'string') return;
    const p = plotFor(ev.device), wasLog = [!!p.x.log, !!p.y.log];
    let gap = false;
    if (ev.reset || ev.run !== p.run) {
      gap = !ev.reset;  // another run without a reset first: we missed events
      p.series = [];
      p.points = 0;
      p.run = ev.run === undefined ? null : ev.run;
    }
    if (typeof ev.title === 'string') p.heading = ev.title;
    if (ev.x) p.x = ev.x;
    if (ev.y) p.y = ev.y;
    const drawable = (x, y) => tr(x, p.x.log) !== null && tr(y, p.y.log) !== null;
    let recount = wasLog[0] !== !!p.x.log || wasLog[1] !== !!p.y.log;
    (Array.isArray(ev.series) ? ev.series : []).forEach((s, position) => {
      const i = isNum(s.index) ? s.index : position;  // a series' index is its place in the array
      while (p.series.length <= i) p.series.push({ name: '', x: [], y: [], n: 0 });  // n: the server's count
      const have = p.series[i], xs = Array.isArray(s.x) ? s.x : [], ys = Array.isArray(s.y) ? s.y : [];
      if (typeof s.name === 'string') have.name = s.name;
      const from = isNum(s.from) ? s.from : have.n, count = Math.min(xs.length, ys.length);
      if (from < have.n) {         // some we have already: the server's copy wins
        have.x.length = have.y.length = Math.max(0, have.x.length - (have.n - from));
        recount = true;
      } else if (from > have.n) {  // some we never got: break the line there, then resync
        have.x.push(null); have.y.push(null);
        gap = true;
      }
      have.n = from + count;
      for (let k = 0; k < count; k++) {
        have.x.push(xs[k]); have.y.push(ys[k]);
        if (drawable(xs[k], ys[k])) p.points++;
      }
    });
    if (recount) {
      p.points = 0;
      for (const s of p.series) for (let k = 0; k < s.x.length; k++) if (drawable(s.x[k], s.y[k])) p.points++;
    }
    if (isNum(ev.latest_host_time)) p.latest = ev.latest_host_time;
    setAttr(p.canvas, 'data-points', p.points);
    setAttr(p.canvas, 'data-run', p.run === null ? '' : p.run);
    describe(p);
    if (gap) resync();
    markDirty(p);
  }

  let drawTimer = null, lastDraw = 0;
  function markDirty(p) {  // coalesce: one redraw of every dirty plot per frame, at most every REDRAW_MS
    p.dirty = true;
    if (drawTimer !== null) return;
    drawTimer = setTimeout(() => requestAnimationFrame(() => {
      drawTimer = null;
      lastDraw = Date.now();
      for (const q of plots.values()) if (q.dirty) { q.dirty = false; drawPlot(q); }
    }), Math.max(0, lastDraw + REDRAW_MS - Date.now()));
  }

  // Ticks between lo and hi (axis units), about `count` of them: {at, text}.
  function ticks(lo, hi, axis, count) {
    const unit = axis.unit || '', out = [];
    if (axis.log) {  // decades (every n-th when crowded); 1-2-5 inside them when there are few
      const every = Math.max(1, Math.ceil((Math.floor(hi) - Math.ceil(lo) + 1) / Math.max(2, count)));
      for (let d = Math.ceil(lo - 1e-9); d <= hi + 1e-9; d++) if (d % every === 0) out.push({ at: d, text: fmtSI(10 ** d, unit) });
      if (!out.length || (out.length < 3 && (hi - lo) * 3 <= count * 1.25)) {
        out.length = 0;
        for (let d = Math.floor(lo); d <= Math.ceil(hi); d++) {
          for (const m of [1, 2, 5]) {
            const at = d + Math.log10(m);
            if (at >= lo - 1e-9 && at <= hi + 1e-9) out.push({ at, text: fmtSI(m * 10 ** d, unit) });
          }
        }
      }
      return out;
    }
    const raw = (hi - lo) / Math.max(1, count), mag = 10 ** Math.floor(Math.log10(raw)), f = raw / mag;
    const step = (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * mag;
    const e = prefixExp(unit, Math.max(Math.abs(lo), Math.abs(hi)));  // one prefix for the axis
    const decimals = Math.min(12, Math.max(0, Math.ceil(-Math.log10(step / 10 ** e) - 1e-9)));
    for (let k = Math.ceil(lo / step - 1e-9); k * step <= hi + step * 1e-9; k++) {
      const text = k === 0 ? '0' : minus((k * step / 10 ** e).toFixed(decimals)) + (unit ? ' ' + PREFIX[e] + unit : '');
      out.push({ at: k * step, text });
    }
    return out;
  }
  function colour(i, n) {  // the palette, or past ten series a ramp from the first to the last
    if (n <= PALETTE.length) return PALETTE[i];
    const t = (i / (n - 1)) * (RAMP.length - 1), k = Math.min(RAMP.length - 2, Math.floor(t));
    return 'rgb(' + RAMP[k].map((v, j) => Math.round(v + (RAMP[k + 1][j] - v) * (t - k))).join(',') + ')';
  }
  const axisTitle = (a) => (a.unit ? (a.label || '') + ' (' + a.unit + ')' : a.label || '');
  function span(lo, hi, log) {  // a flat range still gets an axis; then 3 % air on each side
    if (hi - lo < 1e-12 * Math.max(1, Math.abs(hi))) { const d = log ? 0.5 : Math.abs(hi) * 0.1 || 1; lo -= d; hi += d; }
    return [lo - (hi - lo) * 0.03, hi + (hi - lo) * 0.03];
  }

  function drawPlot(p) {
    // When the newest point on screen was received by the rig (seconds since the epoch): its age is what
    // an operator waits, measured by `make bench-page`.
    if (isNum(p.latest)) setAttr(p.canvas, 'data-drawn-host-time', p.latest);
    const c = p.canvas, w = c.clientWidth, h = c.clientHeight, dpr = window.devicePixelRatio || 1;
    if (!w || !h) return;
    if (c.width !== Math.round(w * dpr)) c.width = Math.round(w * dpr);
    if (c.height !== Math.round(h * dpr)) c.height = Math.round(h * dpr);
    const g = c.getContext('2d'), xa = p.x || {}, ya = p.y || {};
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.clearRect(0, 0, w, h);
    let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
    for (const s of p.series) {
      for (let k = 0; k < s.x.length; k++) {
        const x = tr(s.x[k], xa.log), y = tr(s.y[k], ya.log);
        if (x === null || y === null) continue;
        x0 = Math.min(x0, x); x1 = Math.max(x1, x); y0 = Math.min(y0, y); y1 = Math.max(y1, y);
      }
    }
    if (!(x1 >= x0)) {
      g.fillStyle = '#5b6470'; g.textAlign = 'center'; g.textBaseline = 'middle'; g.font = '14px ' + FONT;
      g.fillText('no data yet', w / 2, h / 2);
      return;
    }
    [x0, x1] = span(x0, x1, xa.log);
    [y0, y1] = span(y0, y1, ya.log);
    // The legend (more than one series): swatches and names in rows above the plot area.
    g.font = '11px ' + FONT;
    const n = p.series.length, legend = [];
    if (n > PALETTE.length) {
      legend.push({ ramp: true, text: (p.series[0].name || '1') + ' \u2026 ' + (p.series[n - 1].name || n) });
    } else if (p.series.filter((s) => s.x.length).length > 1) {
      p.series.forEach((s, i) => legend.push({ colour: colour(i, n), text: s.name || 'series ' + (i + 1) }));
    }
    let lx = Infinity, ly = -2;
    for (const item of legend) {
      item.swatch = item.ramp ? 40 : 18;
      const iw = item.swatch + g.measureText(item.text).width + 14;
      if (lx + iw > w - 8) { lx = 8; ly += 16; }
      Object.assign(item, { x: lx, y: ly });
      lx += iw;
    }
    // Layout: y ticks fix the left margin; x ticks thin out until their labels do not touch.
    const top = legend.length ? ly + 14 : 8, plotH = Math.max(20, h - top - 40);
    const yt = ticks(y0, y1, ya, plotH / 36);
    const left = 30 + Math.max(10, ...yt.map((t) => g.measureText(t.text).width));
    let xt = [], count = (w - left - 16) / 80;
    for (let tries = 0; tries < 4; tries++) {
      xt = ticks(x0, x1, xa, count);
      const widest = Math.max(10, ...xt.map((t) => g.measureText(t.text).width));
      if (xt.length < 2 || (w - left - 16) / xt.length > widest + 14) break;
      count = Math.max(1, (w - left - 16) / (widest + 24));
    }
    const right = Math.max(12, xt.length ? g.measureText(xt[xt.length - 1].text).width / 2 + 4 : 0);
    const plotW = Math.max(20, w - left - right);
    const X = (v) => left + ((v - x0) / (x1 - x0)) * plotW, Y = (v) => top + plotH - ((v - y0) / (y1 - y0)) * plotH;
    // Grid, frame, tick labels, axis titles.
    g.strokeStyle = '#e3e7ec'; g.lineWidth = 1; g.beginPath();
    for (const t of xt) { const px = Math.round(X(t.at)) + 0.5; g.moveTo(px, top); g.lineTo(px, top + plotH); }
    for (const t of yt) { const py = Math.round(Y(t.at)) + 0.5; g.moveTo(left, py); g.lineTo(left + plotW, py); }
    g.stroke();
    g.strokeStyle = '#8a939e'; g.strokeRect(Math.round(left) + 0.5, Math.round(top) + 0.5, Math.round(plotW), Math.round(plotH));
    g.fillStyle = '#2b3138'; g.textAlign = 'right'; g.textBaseline = 'middle';
    for (const t of yt) g.fillText(t.text, left - 6, Y(t.at));
    g.textAlign = 'center'; g.textBaseline = 'top';
    for (const t of xt) g.fillText(t.text, X(t.at), top + plotH + 5);
    g.font = '12px ' + FONT;
    g.fillText(axisTitle(xa), left + plotW / 2, top + plotH + 22);
    g.save(); g.translate(4, top + plotH / 2); g.rotate(-Math.PI / 2); g.fillText(axisTitle(ya), 0, 0); g.restore();
    // Series: a line through the points in order, broken where a point cannot be drawn; a dot
    // for a point alone between such breaks.
    g.save(); g.beginPath(); g.rect(left, top, plotW, plotH); g.clip();
    g.lineWidth = 1.5; g.lineJoin = 'round';
    p.series.forEach((s, i) => {
      g.strokeStyle = g.fillStyle = colour(i, n);
      g.beginPath();
      let len = 0, lx = 0, ly = 0;
      const dot = () => { if (len === 1) g.fillRect(lx - 1.5, ly - 1.5, 3, 3); };
      for (let k = 0; k < s.x.length; k++) {
        const x = tr(s.x[k], xa.log), y = tr(s.y[k], ya.log);
        if (x === null || y === null) { dot(); len = 0; continue; }
        lx = X(x); ly = Y(y);
        if (len++ === 0) g.moveTo(lx, ly); else g.lineTo(lx, ly);
      }
      dot();
      g.stroke();
    });
    g.restore();
    g.font = '11px ' + FONT; g.textAlign = 'left'; g.textBaseline = 'middle';
    for (const item of legend) {
      if (item.ramp) {
        const grad = g.createLinearGradient(item.x, 0, item.x + 32, 0);
        RAMP.forEach((rgb, j) => grad.addColorStop(j / (RAMP.length - 1), 'rgb(' + rgb.join(',') + ')'));
        g.fillStyle = grad; g.fillRect(item.x, item.y - 4, 32, 8);
      } else {
        g.fillStyle = item.colour; g.fillRect(item.x, item.y - 1.5, 14, 3);
      }
      g.fillStyle = '#2b3138'; g.fillText(item.text, item.x + item.swatch, item.y);
    }
  }

  // ---- run history: 50 runs a page, newest first; one device or all; older pages on request ----
  const RUNS_PAGE = 50;
  let runsBusy = false, runsAgain = false, runsText = '';
  let runsDevice = '', runsBefore = null, runsNewer = [], runsOldest = null;
  function runsQuery() {
    let q = 'api/runs?limit=' + RUNS_PAGE;
    if (runsDevice) q += '&device=' + encodeURIComponent(runsDevice);
    if (runsBefore !== null) q += '&before=' + encodeURIComponent(runsBefore);
    return q;
  }
  function loadRuns() {
    if (runsBusy) { runsAgain = true; return; }
    runsBusy = true;
    get(runsQuery()).then((r) => r.text())
      .then((text) => {
        setText($('runs-note'), '');
        if (text !== runsText) { renderRuns(JSON.parse(text)); runsText = text; }
      })
      .catch((err) => setText($('runs-note'), '(could not load: ' + err.message + ')'))
      .finally(() => { runsBusy = false; if (runsAgain) { runsAgain = false; loadRuns(); } });
  }
  function renderRuns(runs) {
    if (!Array.isArray(runs)) runs = [];
    const body = $('runs-body'), now = Date.now() / 1000;
    body.textContent = '';
    for (const r of runs) {
      const row = clone('run-row'), cell = (cls) => row.querySelector('.' + cls);
      row.dataset.runId = r.id;
      row.dataset.device = r.device || '';
      setText(cell('id'), fmtInt(r.id));
      setText(cell('device'), r.device || DASH);
      setText(cell('device-run'), fmtInt(r.device_run));
      setText(cell('title'), r.title || DASH);
      badge(cell('badge'), r.state);
      // The reason, and what became of the cell after it (or what the run's connection found first).
      const notes = [r.reason, r.cell, r.found_at_connect].filter(Boolean);
      setText(cell('reason'), notes.length ? notes.join('; ') : DASH);
      setAttr(cell('reason'), 'title', notes.join('\n'));
      cell('reason').classList.toggle('error-text', !!r.reason || (r.cell || '').startsWith('cell state unknown'));
      setText(cell('started'), fmtTime(r.started_at));
      const end = isNum(r.ended_at) ? r.ended_at : r.state === 'running' ? now : NaN;
      const ongoing = isNum(r.ended_at) ? '' : '\u2026';
      setText(cell('duration'), isNum(r.started_at) && isNum(end) ? fmtDuration(end - r.started_at) + ongoing : DASH);
      setText(cell('packages'), fmtInt(r.packages));
      for (const a of row.querySelectorAll('.downloads a')) {
        a.href = 'runs/' + encodeURIComponent(r.id) + '/' + a.dataset.path;
        a.hidden = !!r.pruned;
      }
      cell('pruned').hidden = !r.pruned;
      body.appendChild(row);
    }
    $('runs-empty').hidden = runs.length > 0;
    runsOldest = runs.length ? runs[runs.length - 1].id : null;
    $('runs-older').disabled = runs.length < RUNS_PAGE;
    $('runs-newer').disabled = runsBefore === null;
    setText($('runs-page'), runs.length
      ? (runsBefore === null ? 'newest ' : 'older ') + fmtInt(runs.length) + ' run' + (runs.length === 1 ? '' : 's')
        + ', #' + fmtInt(runs[runs.length - 1].id) + '–#' + fmtInt(runs[0].id)
      : '');
  }
  function showRunsPage(before) { runsBefore = before; runsText = ''; loadRuns(); }
  $('runs-older').addEventListener('click', () => {
    if (runsOldest === null) return;
    runsNewer.push(runsBefore);
    showRunsPage(runsOldest);
  });
  $('runs-newer').addEventListener('click', () => showRunsPage(runsNewer.length ? runsNewer.pop() : null));
  $('runs-device').addEventListener('change', (event) => {
    runsDevice = event.target.value; runsNewer = []; showRunsPage(null);
  });
  /** The device filter offers every device the rig has (kept in the order the status lists them). */
  function offerDevices(names) {
    const select = $('runs-device');
    const have = Array.from(select.options).slice(1).map((o) => o.value);
    if (have.join('\n') === names.join('\n')) return;
    for (const option of Array.from(select.options).slice(1)) option.remove();
    for (const name of names) {
      const option = document.createElement('option');
      option.value = name; option.textContent = name;
      select.appendChild(option);
    }
    select.value = names.includes(runsDevice) ? runsDevice : '';
  }

  // ---- control: with the control token (kept for this tab only), run now, abort, pause and resume ----
  const TOKEN_KEY = 'hcipico-control-token';
  let controlToken = null, methods = [], controlTimer = null;

  // A control call: the control token in its own Authorization header (it is also let in to read).
  function control(method, path, body) {
    const url = new URL(path, document.baseURI);
    url.username = url.password = '';
    const headers = { Authorization: 'Bearer ' + controlToken };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    return fetch(url, { method, headers, cache: 'no-store', body: body === undefined ? undefined : JSON.stringify(body) })
      .then((r) => r.text().then((text) => {
        let json = null;
        try { json = text ? JSON.parse(text) : null; } catch (e) { json = null; }
        return { ok: r.ok, status: r.status, json };
      }));
  }
  function unlock(token) {
    controlToken = token;
    return control('GET', 'api/control').then((answer) => {
      if (!answer.ok) {
        controlToken = null;
        sessionStorage.removeItem(TOKEN_KEY);
        throw new Error(answer.status === 403 ? 'that token may not control this rig'
          : answer.json && answer.json.error ? answer.json.error : 'HTTP ' + answer.status);
      }
      sessionStorage.setItem(TOKEN_KEY, token);
      $('control-unlock').hidden = true;
      $('control-panel').hidden = false;
      setText($('control-note'), 'unlocked: runs, aborts and pauses are recorded in the journal');
      return get('api/methods').then((r) => r.json()).then((list) => {
        methods = Array.isArray(list) ? list : [];
        const select = $('run-technique');
        select.textContent = '';
        for (const m of methods) {
          const option = document.createElement('option');
          option.value = m.technique;
          option.textContent = m.technique + ' \u2013 ' + m.name;
          select.appendChild(option);
        }
        showParameters();
        refreshControl();
        if (!controlTimer) controlTimer = setInterval(refreshControl, 2000);
      });
    });
  }
  function lock() {
    controlToken = null;
    sessionStorage.removeItem(TOKEN_KEY);
    if (controlTimer) { clearInterval(controlTimer); controlTimer = null; }
    $('control-panel').hidden = true;
    $('control-unlock').hidden = false;
    setText($('control-note'), 'read-only: give the control token to run, abort or pause');
  }
  // One input per parameter of the chosen technique, at its default, its unit and meaning alongside.
  function showParameters() {
    const box = $('run-params'), method = methods.find((m) => m.technique === $('run-technique').value);
    box.textContent = '';
    if (!method) return;
    for (const p of method.parameters) {
      const label = document.createElement('label'), input = document.createElement('input');
      label.textContent = p.key + (p.unit ? ' (' + p.unit + ')' : '');
      label.title = p.meaning;
      input.type = 'number';
      input.step = 'any';
      input.name = p.key;
      input.value = String(p.default_value);
      input.dataset.default = String(p.default_value);
      label.appendChild(input);
      box.appendChild(label);
    }
  }
  function submitRun(event) {
    event.preventDefault();
    const parameters = {};
    for (const input of $('run-params').querySelectorAll('input')) {
      input.classList.remove('invalid');
      if (input.value !== input.dataset.default) parameters[input.name] = Number(input.value);
    }
    const device = $('run-device').value, body = { technique: $('run-technique').value, parameters,
      priority: Number($('run-priority').value || 0) };
    setText($('run-result'), 'submitting\u2026');
    control('POST', 'api/devices/' + encodeURIComponent(device) + '/requests', body).then((answer) => {
      if (answer.ok && answer.json) {
        setText($('run-result'), 'queued on ' + device + ': ' + answer.json.title + ' (' + answer.json.state + ')');
        refreshControl();
      } else {
        const problem = answer.json || {};
        const input = problem.parameter && $('run-params').querySelector('input[name="' + CSS.escape(problem.parameter) + '"]');
        if (input) input.classList.add('invalid');
        setText($('run-result'), (problem.parameter ? problem.parameter + ': ' : '') + (problem.error || 'HTTP ' + answer.status));
      }
    }).catch((err) => setText($('run-result'), err.message));
  }
  // Each device's row, updated in place (a row rebuilt under the pointer would swallow a click).
  function refreshControl() {
    if (!controlToken) return;
    get('api/devices').then((r) => r.json()).then((devices) => {
      const select = $('run-device'), body = $('control-body'), rows = new Map(), names = new Set();
      for (const row of Array.from(body.rows)) rows.set(row.dataset.device, row);
      for (const d of devices) {
        names.add(d.name);
        if (!Array.from(select.options).some((o) => o.value === d.name)) {
          const option = document.createElement('option');
          option.value = option.textContent = d.name;
          select.appendChild(option);
        }
        let row = rows.get(d.name);
        if (!row) {
          row = clone('control-row');
          row.dataset.device = d.name;
          const path = 'api/devices/' + encodeURIComponent(d.name);
          row.querySelector('.pause').addEventListener('click', () =>
            act('POST', path + '/schedule/' + (row.dataset.paused === 'true' ? 'resume' : 'pause')));
          row.querySelector('.abort').addEventListener('click', () => {
            if (confirm('Abort ' + d.name + '\u2019s run in progress? Its cell is then switched off.')) act('POST', path + '/abort');
          });
          body.appendChild(row);
        }
        const cell = (cls) => row.querySelector('.' + cls);
        row.dataset.paused = String(!!d.schedule_paused);
        setText(cell('name'), d.name);
        setText(cell('schedule'), d.schedule_paused ? 'paused' : 'active');
        setText(cell('queued'), fmtInt(d.queued));
        setText(cell('running'), d.running ? d.running.title + (isNum(d.running.device_run) ? ' #' + d.running.device_run : '') : DASH);
        setText(cell('pause'), d.schedule_paused ? 'Resume schedule' : 'Pause schedule');
        cell('abort').disabled = !d.running;
      }
      for (const [name, row] of rows) if (!names.has(name)) row.remove();
      for (const option of Array.from(select.options)) if (!names.has(option.value)) option.remove();
    }).catch(() => {});
  }
  function act(method, path) {
    control(method, path).then((answer) => {
      setText($('run-result'), answer.ok ? '' : (answer.json && answer.json.error) || 'HTTP ' + answer.status);
      refreshControl();
    });
  }
  $('control-unlock').addEventListener('submit', (event) => {
    event.preventDefault();
    setText($('control-error'), '');
    unlock($('control-token').value).catch((err) => setText($('control-error'), err.message));
    $('control-token').value = '';
  });
  $('control-lock').addEventListener('click', lock);
  $('run-technique').addEventListener('change', showParameters);
  $('run-form').addEventListener('submit', submitRun);
  if (sessionStorage.getItem(TOKEN_KEY)) unlock(sessionStorage.getItem(TOKEN_KEY)).catch(() => {});

  // ---- the event stream ----
  function setConn(state, text) {
    setAttr($('conn'), 'data-state', state);
    setText($('conn-text'), text);
  }
  function connect() {
    if (source) source.close();
    setConn('connecting', 'connecting\u2026');
    const es = (source = new EventSource('events'));
    const parse = (e, apply) => {
      try { apply(JSON.parse(e.data)); } catch (err) { console.warn('bad ' + e.type + ' event:', err); }
    };
    es.onopen = () => setConn('open', 'live');
    es.addEventListener('status', (e) => { streamed = true; parse(e, applyStatus); });
    es.addEventListener('plot', (e) => parse(e, applyPlot));
    es.onerror = () => {
      if (es !== source) return;
      if (es.readyState === EventSource.CLOSED) {  // the browser gave up (an HTTP error): retry anyway
        setConn('closed', 'disconnected \u2013 retrying\u2026');
        setTimeout(() => { if (es === source) connect(); }, 5000);
      } else setConn('reconnecting', 'reconnecting\u2026');  // EventSource retries by itself
    };
  }
  function resync() {  // a gap in a plot: reconnect, and the server sends every plot afresh
    if (Date.now() - lastResync < RESYNC_MS) return;
    lastResync = Date.now();
    connect();
  }

  get('api/status').then((r) => r.json())
    .then((st) => { if (!streamed) applyStatus(st); })
    .catch((err) => { if (!streamed) setText($('devices-empty'), 'Could not load the status: ' + err.message); });
  connect();
  loadRuns();
  setInterval(loadRuns, RUNS_EVERY_MS);
  setInterval(() => {  // a stream that is open but quiet (the rig hung) shows as stale
    const state = $('conn').dataset.state, quiet = Date.now() - lastStatusAt;
    if ((state === 'open' || state === 'stale') && lastStatusAt && quiet > 5000) {
      setConn('stale', 'no update for ' + fmtDuration(quiet / 1000));
    } else if (state === 'stale') setConn('open', 'live');
  }, 1000);
})();
