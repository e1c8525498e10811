// hcipico status page. Fills the header and the device table from `status` (GET api/status once, then
// the `events` stream), draws one live plot per device from `plot` events and lists the run history
// (GET api/runs). Server strings only ever go into textContent or attributes, never innerHTML.
// URLs are relative so the page also works behind a reverse proxy path.
'use strict';
(function () {
  const REDRAW_MS = 200;          // at most ~5 plot redraws a second
  const RUNS_EVERY_MS = 10000;
  const RESYNC_MS = 30000;        // at most one stream reconnect a while to repair a plot gap
  const DASH = '\u2014';
  const PALETTE = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd',
    '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf'];
  const RAMP = [[13, 8, 135], [106, 0, 168], [177, 42, 144], [225, 100, 98], [252, 166, 54]];
  const PREFIX = { '-15': 'f', '-12': 'p', '-9': 'n', '-6': '\u00b5', '-3': 'm', '0': '', '3': 'k', '6': 'M', '9': 'G', '12': 'T' };
  const DEVICE_COLUMNS = ['Device', 'State', 'Current run', 'Progress', 'Packages', 'Reconnects',
    'Last error', 'Link', 'RSSI', 'Firmware'];
  const RUN_COLUMNS = ['ID', 'Device', 'Run', 'Title', 'State', 'Reason', 'Started', 'Duration', 'Packages', 'Downloads'];

  const $ = (id) => document.getElementById(id);
  const isNum = (v) => typeof v === 'number' && Number.isFinite(v);
  const plots = new Map();        // device name -> plot state (see plotFor)
  let lastStatusTime = -Infinity; // `time` of the newest status applied
  let lastStatusAt = 0;           // local clock when it arrived
  let runIds = null;              // device -> current run id, to notice run changes
  let source = null;
  let lastResync = 0;

  // ---- small DOM and formatting helpers ----
  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }
  function setText(node, text) {
    text = text === null || text === undefined ? '' : String(text);
    if (node.textContent !== text) node.textContent = text;
  }
  function setAttr(node, name, value) {
    value = String(value);
    if (node.getAttribute(name) !== value) node.setAttribute(name, value);
  }
  function badge(node, state) {
    setText(node, state || DASH);
    setAttr(node, 'class', 'badge state-' + String(state || 'unknown').replace(/[^a-z]/gi, ''));
  }
  const fmtInt = (n) => (isNum(n) ? n.toLocaleString() : DASH);
  function fmtBytes(n) {
    if (!isNum(n)) return DASH;
    const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
    let i = 0;
    while (n >= 1024 && i < units.length - 1) { n /= 1024; i++; }
    return (i === 0 ? String(n) : n.toFixed(n < 100 ? 1 : 0)) + '\u00a0' + units[i];
  }
  function fmtDuration(s) {
    if (!isNum(s) || s < 0) return DASH;
    if (s < 60) return s.toFixed(s < 10 ? 1 : 0) + ' s';
    const m = Math.floor(s / 60), h = Math.floor(m / 60), d = Math.floor(h / 24);
    if (m < 60) return m + ' min ' + Math.floor(s % 60) + ' s';
    if (h < 24) return h + ' h ' + (m % 60) + ' min';
    return d + ' d ' + (h % 24) + ' h';
  }
  function fmtTime(t) {
    if (!isNum(t)) return DASH;
    const d = new Date(t * 1000), p = (v) => String(v).padStart(2, '0');
    const time = p(d.getHours()) + ':' + p(d.getMinutes()) + ':' + p(d.getSeconds());
    if (d.toDateString() === new Date().toDateString()) return time;
    return d.getFullYear() + '-' + p(d.getMonth() + 1) + '-' + p(d.getDate()) + ' ' + time;
  }
  const minus = (s) => s.replace(/^-/, '\u2212');
  // The SI prefix exponent for values of this magnitude (none for °, %, unitless; seconds not above s).
  function prefixExp(unit, magnitude) {
    if (!unit || unit === '\u00b0' || unit === '%' || !(magnitude > 0)) return 0;
    const e = Math.floor(Math.log10(magnitude) / 3 + 1e-9) * 3;
    return Math.max(-15, Math.min(unit === 's' ? 0 : 12, e));
  }
  function fmtSI(v, unit) {  // one value with its own prefix: 1.5 µA (log axis ticks)
    const e = prefixExp(unit, Math.abs(v));
    if (!unit && (Math.abs(v) >= 1e5 || Math.abs(v) < 1e-3)) return minus(v.toExponential(0));
    const s = minus(String(Number((v / 10 ** e).toPrecision(3))));
    return unit ? s + ' ' + PREFIX[e] + unit : s;
  }

  // ---- header and device table ----
  function applyStatus(st) {
    if (!st || typeof st !== 'object') return;
    if (isNum(st.time)) {
      if (st.time < lastStatusTime) return;  // an older snapshot (the initial fetch lost the race)
      lastStatusTime = st.time;
    }
    lastStatusAt = Date.now();
    setText($('rig-name'), st.rig || 'hcipico');
    document.title = (st.rig || 'hcipico') + ' \u2013 rig status';
    setText($('version'), st.version || '');
    const j = st.journal || {};
    setText($('journal-size'), fmtBytes(j.size_bytes));
    setText($('journal-packages'), fmtInt(j.committed_packages));
    const problem = j.failed ? 'failed: ' + j.failed
      : isNum(j.stalled_seconds) && j.stalled_seconds >= 5 ? 'stalled for ' + fmtDuration(j.stalled_seconds) : '';
    $('journal-problem-box').hidden = !problem;
    setText($('journal-problem'), problem);
    applyForwarder(st.forwarder);
    applyDevices(Array.isArray(st.devices) ? st.devices : []);
    setText($('updated'), 'Status of ' + fmtTime(isNum(st.time) ? st.time : Date.now() / 1000) + '.');
  }

  function applyForwarder(f) {
    const on = !!(f && f.enabled);
    setAttr($('forwarder'), 'data-state', on ? f.state || 'unknown' : 'off');
    if (on) badge($('fwd-state'), f.state); else { setText($('fwd-state'), 'not configured'); setAttr($('fwd-state'), 'class', 'badge state-off'); }
    setAttr($('forwarder'), 'title', on && f.target ? f.target : '');
    setText($('fwd-lag'), on ? 'lag ' + fmtInt(f.lag_packages) + ' pkg' + (isNum(f.lag_seconds) ? ' / ' + fmtDuration(f.lag_seconds) : '') : '');
    setText($('fwd-errors'), on ? 'errors ' + fmtInt(f.errors) : '');
    setText($('fwd-error'), on && f.last_error ? f.last_error : '');
    setAttr($('fwd-error'), 'title', on && f.last_error ? f.last_error : '');
  }

  function deviceRow(name) {
    const body = $('devices-body');
    for (const row of body.rows) if (row.dataset.device === name) return row;
    const row = el('tr');
    row.dataset.device = name;
    for (const label of DEVICE_COLUMNS) {
      const td = el('td');
      td.dataset.label = label;
      row.appendChild(td);
    }
    const c = row.cells;
    c[0].className = 'name';
    c[1].append(el('span', 'badge'), el('div', 'sub'));
    c[3].className = 'progress';
    const bar = el('div', 'bar');
    bar.setAttribute('role', 'progressbar');
    bar.append(el('div', 'fill'));
    c[3].append(bar, el('span', 'pct'));
    for (const i of [4, 5, 8]) c[i].className = 'num';
    c[6].className = 'last-error';
    c[7].className = 'link small';
    body.appendChild(row);
    return row;
  }

  function applyDevices(devices) {
    const names = new Set();
    let changed = false;
    const ids = new Map();
    for (const d of devices) {
      if (!d || typeof d.name !== 'string') continue;
      names.add(d.name);
      const row = deviceRow(d.name), c = row.cells, run = d.run || null;
      setAttr(row, 'data-state', d.state || 'unknown');
      setText(c[0], d.name);
      setAttr(c[0], 'title', d.connected ? 'connected' : 'not connected');
      badge(c[1].firstChild, d.state);
      setText(c[1].lastChild, d.state_text && d.state_text !== d.state ? d.state_text : '');
      setText(c[2], run ? '#' + (run.device_run !== undefined && run.device_run !== null ? run.device_run : '?') + (run.title ? ' ' + run.title : '') : DASH);
      const p = run && isNum(run.progress) ? Math.max(0, Math.min(1, run.progress)) : null;
      c[3].firstChild.hidden = p === null;
      c[3].firstChild.firstChild.style.width = p === null ? '0' : (p * 100).toFixed(1) + '%';
      setAttr(c[3].firstChild, 'aria-valuenow', p === null ? '' : Math.round(p * 100));
      setText(c[3].lastChild, p === null ? DASH : Math.floor(p * 100) + '%');
      setText(c[4], fmtInt(d.packages) + (d.overflowed > 0 ? ' (' + fmtInt(d.overflowed) + ' lost)' : ''));
      setAttr(c[4], 'title', 'runs ' + fmtInt(d.runs) + ', complete ' + fmtInt(d.complete_runs) + ', incomplete ' + fmtInt(d.incomplete_runs));
      setText(c[5], fmtInt(d.reconnects));
      setText(c[6], d.last_error || DASH);
      c[6].classList.toggle('error-text', !!d.last_error);
      setAttr(c[6], 'title', d.last_error || '');
      setText(c[7], d.link || DASH);
      setText(c[8], isNum(d.rssi) ? minus(String(d.rssi)) + ' dBm' : DASH);
      setText(c[9], d.firmware || DASH);
      const id = run && run.id !== undefined ? run.id : null;
      ids.set(d.name, id);
      if (runIds && runIds.get(d.name) !== id) changed = true;
      const plot = plotFor(d.name);
      if (plot.running !== !!run) { plot.running = !!run; markDirty(plot); }
    }
    for (const row of Array.from($('devices-body').rows)) if (!names.has(row.dataset.device)) row.remove();
    $('devices-empty').hidden = names.size > 0;
    if (!names.size) setText($('devices-empty'), 'No devices configured.');
    runIds = ids;
    if (changed) setTimeout(loadRuns, 300);  // a run began or ended: its history row changed
  }

  // ---- plots ----
  function plotFor(name) {
    let p = plots.get(name);
    if (p) return p;
    const card = el('article', 'plot-card');
    card.dataset.device = name;
    const head = el('header');
    const title = el('h3', null, name);
    const info = el('span', 'muted small');
    head.append(title, info);
    const canvas = el('canvas');
    canvas.dataset.device = name;
    canvas.dataset.points = '0';
    canvas.setAttribute('role', 'img');
    card.append(head, canvas);
    $('plots').appendChild(card);
    p = { name, card, canvas, title, info, run: null, heading: '', x: {}, y: {}, series: [], points: 0,
      running: false, dirty: true };
    plots.set(name, p);
    if (window.ResizeObserver) new ResizeObserver(() => markDirty(p)).observe(canvas);
    markDirty(p);
    return p;
  }

  const tr = (v, log) => (!isNum(v) ? null : log ? (v > 0 ? Math.log10(v) : null) : v);

  function applyPlot(ev) {
    if (!ev || typeof ev.device !== 'string') return;
    const p = plotFor(ev.device);
    let gap = false;
    if (ev.reset || ev.run !== p.run) {
      gap = !ev.reset && p.run !== null;  // a new run without its reset: we missed events
      p.series = [];
      p.run = ev.run === undefined ? null : ev.run;
    }
    if (typeof ev.title === 'string') p.heading = ev.title;
    if (ev.x) p.x = ev.x;
    if (ev.y) p.y = ev.y;
    (Array.isArray(ev.series) ? ev.series : []).forEach((s, position) => {
      const i = isNum(s.index) ? s.index : position;
      while (p.series.length <= i) p.series.push({ name: '', x: [], y: [] });
      const have = p.series[i];
      if (typeof s.name === 'string') have.name = s.name;
      const xs = Array.isArray(s.x) ? s.x : [], ys = Array.isArray(s.y) ? s.y : [];
      const from = isNum(s.from) ? s.from : have.x.length;
      if (from < have.x.length) {          // points we already have: drop ours, keep the server's
        have.x.length = from; have.y.length = from;
      } else if (from > have.x.length) {   // points we never got: break the line there, resync
        have.x.push(null); have.y.push(null);
        gap = true;
      }
      for (let k = 0; k < Math.min(xs.length, ys.length); k++) { have.x.push(xs[k]); have.y.push(ys[k]); }
    });
    let n = 0;
    for (const s of p.series) for (let k = 0; k < s.x.length; k++) if (tr(s.x[k], p.x.log) !== null && tr(s.y[k], p.y.log) !== null) n++;
    p.points = n;
    setAttr(p.canvas, 'data-points', n);
    setAttr(p.canvas, 'data-run', p.run === null ? '' : p.run);
    if (gap) resync();
    markDirty(p);
  }

  let drawTimer = null, lastDraw = 0;
  function markDirty(p) {
    p.dirty = true;
    if (drawTimer !== null) return;
    drawTimer = setTimeout(() => requestAnimationFrame(() => {
      drawTimer = null;
      lastDraw = Date.now();
      for (const q of plots.values()) if (q.dirty) { q.dirty = false; drawPlot(q); }
    }), Math.max(0, lastDraw + REDRAW_MS - Date.now()));
  }

  function niceStep(span, count) {
    const raw = span / Math.max(1, count), mag = 10 ** Math.floor(Math.log10(raw)), f = raw / mag;
    return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * mag;
  }
  // Ticks for [lo, hi] (log10 values on a log axis): positions in axis units and their labels.
  function ticks(lo, hi, axis, count) {
    const unit = axis.unit || '', out = [];
    if (axis.log) {
      const d0 = Math.ceil(lo - 1e-9), d1 = Math.floor(hi + 1e-9);
      const every = Math.max(1, Math.ceil((d1 - d0 + 1) / Math.max(2, count)));
      for (let d = d0; d <= d1; d++) if (d % every === 0) out.push({ at: d, text: fmtSI(10 ** d, unit) });
      if (out.length < 3 && (hi - lo) * 3 <= count * 1.25) {  // few decades: 1, 2, 5 steps inside them
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
    const step = niceStep(hi - lo, count);
    const e = prefixExp(unit, Math.max(Math.abs(lo), Math.abs(hi)));
    const decimals = Math.min(12, Math.max(0, Math.ceil(-Math.log10(step / 10 ** e) - 1e-9)));
    for (let k = Math.ceil(lo / step - 1e-9); k * step <= hi + step * 1e-9; k++) {
      const v = k * step;
      let text = k === 0 ? '0' : (v / 10 ** e).toFixed(decimals);
      text = minus(text) + (k !== 0 && unit ? ' ' + PREFIX[e] + unit : '');
      out.push({ at: v, text });
    }
    return out;
  }
  function colour(i, n) {
    if (n <= PALETTE.length) return PALETTE[i % PALETTE.length];
    const t = (i / Math.max(1, n - 1)) * (RAMP.length - 1), k = Math.min(RAMP.length - 2, Math.floor(t)), f = t - k;
    const c = RAMP[k].map((v, j) => Math.round(v + (RAMP[k + 1][j] - v) * f));
    return 'rgb(' + c.join(',') + ')';
  }
  const axisTitle = (a) => (a.unit ? (a.label || '') + ' (' + a.unit + ')' : a.label || '');

  function drawPlot(p) {
    const c = p.canvas, w = c.clientWidth, h = c.clientHeight, dpr = window.devicePixelRatio || 1;
    setText(p.title, p.heading || p.name);
    setText(p.info, (p.running ? 'live \u00b7 ' : '') + p.points.toLocaleString() + ' points');
    setAttr(c, 'aria-label', (p.heading || p.name) + ': ' + p.points + ' points');
    if (!w || !h) return;
    if (c.width !== Math.round(w * dpr) || c.height !== Math.round(h * dpr)) {
      c.width = Math.round(w * dpr); c.height = Math.round(h * dpr);
    }
    const g = c.getContext('2d');
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.clearRect(0, 0, w, h);
    g.font = '11px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
    g.textBaseline = 'middle';
    const xa = p.x || {}, ya = p.y || {};
    let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
    for (const s of p.series) {
      for (let k = 0; k < s.x.length; k++) {
        const x = tr(s.x[k], xa.log), y = tr(s.y[k], ya.log);
        if (x === null || y === null) continue;
        if (x < x0) x0 = x; if (x > x1) x1 = x; if (y < y0) y0 = y; if (y > y1) y1 = y;
      }
    }
    if (!(x1 >= x0)) {
      g.fillStyle = '#5b6470'; g.textAlign = 'center'; g.font = '14px system-ui, sans-serif';
      g.fillText('no data yet', w / 2, h / 2);
      return;
    }
    const widen = (lo, hi, log) => {   // a flat range still gets an axis; then 3 % air each side
      if (hi - lo < 1e-12 * Math.max(1, Math.abs(hi))) { const d = log ? 0.5 : Math.abs(hi) * 0.1 || 1; lo -= d; hi += d; }
      const a = (hi - lo) * 0.03;
      return [lo - a, hi + a];
    };
    [x0, x1] = widen(x0, x1, xa.log);
    [y0, y1] = widen(y0, y1, ya.log);
    // Legend (only with more than one series): rows of swatch + name above the plot area.
    const named = p.series.filter((s) => s.x.length);
    let legend = [];
    if (p.series.length > PALETTE.length) {
      legend = [{ text: (p.series[0].name || '1') + ' \u2026 ' + (p.series[p.series.length - 1].name || p.series.length), ramp: true }];
    } else if (named.length > 1) {
      legend = p.series.map((s, i) => ({ text: s.name || 'series ' + (i + 1), colour: colour(i, p.series.length) }));
    }
    const rows = [];
    let rowW = Infinity;
    for (const item of legend) {
      item.w = (item.ramp ? 40 : 18) + g.measureText(item.text).width + 14;
      if (rowW + item.w > w - 16) { rows.push([]); rowW = 0; }
      rows[rows.length - 1].push(item);
      rowW += item.w;
    }
    const top = 8 + rows.length * 16 + (rows.length ? 4 : 0), bottom = 40;
    const plotH = Math.max(20, h - top - bottom);
    const yt = ticks(y0, y1, ya, plotH / 36);
    const yw = Math.max(...yt.map((t) => g.measureText(t.text).width), 10);
    const left = 22 + yw + 8;
    let xt = [], count = (w - left - 16) / 80;
    for (let tries = 0; tries < 4; tries++) {   // fewer x ticks until their labels do not touch
      xt = ticks(x0, x1, xa, count);
      const widest = Math.max(...xt.map((t) => g.measureText(t.text).width), 10);
      if (xt.length < 2 || (w - left - 16) / xt.length > widest + 14) break;
      count = Math.max(1, (w - left - 16) / (widest + 24));
    }
    const lastW = xt.length ? g.measureText(xt[xt.length - 1].text).width : 0;
    const right = Math.max(12, lastW / 2 + 4), plotW = Math.max(20, w - left - right);
    const X = (v) => left + ((v - x0) / (x1 - x0)) * plotW, Y = (v) => top + plotH - ((v - y0) / (y1 - y0)) * plotH;
    // Grid, frame, ticks.
    g.strokeStyle = '#e3e7ec'; g.lineWidth = 1; g.beginPath();
    for (const t of xt) { const px = Math.round(X(t.at)) + 0.5; g.moveTo(px, top); g.lineTo(px, top + plotH); }
    for (const t of yt) { const py = Math.round(Y(t.at)) + 0.5; g.moveTo(left, py); g.lineTo(left + plotW, py); }
    g.stroke();
    g.strokeStyle = '#8a939e'; g.strokeRect(Math.round(left) + 0.5, Math.round(top) + 0.5, Math.round(plotW), Math.round(plotH));
    g.fillStyle = '#2b3138'; g.textAlign = 'right';
    for (const t of yt) g.fillText(t.text, left - 6, Y(t.at));
    g.textAlign = 'center'; g.textBaseline = 'top';
    for (const t of xt) g.fillText(t.text, X(t.at), top + plotH + 5);
    g.font = '12px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
    g.fillText(axisTitle(xa), left + plotW / 2, top + plotH + 22);
    g.save(); g.translate(4, top + plotH / 2); g.rotate(-Math.PI / 2); g.fillText(axisTitle(ya), 0, 0); g.restore();
    // Series: lines through the points in order, broken at nulls (and non-positive values on log axes).
    g.save(); g.beginPath(); g.rect(left, top, plotW, plotH); g.clip();
    g.lineWidth = 1.5; g.lineJoin = 'round';
    p.series.forEach((s, i) => {
      g.strokeStyle = g.fillStyle = colour(i, p.series.length);
      g.beginPath();
      let run = 0, lx = 0, ly = 0;
      const dot = () => { if (run === 1) g.fillRect(lx - 1.5, ly - 1.5, 3, 3); };
      for (let k = 0; k < s.x.length; k++) {
        const x = tr(s.x[k], xa.log), y = tr(s.y[k], ya.log);
        if (x === null || y === null) { dot(); run = 0; continue; }
        lx = X(x); ly = Y(y);
        if (run++ === 0) g.moveTo(lx, ly); else g.lineTo(lx, ly);
      }
      dot();
      g.stroke();
    });
    g.restore();
    // Legend.
    g.textAlign = 'left'; g.textBaseline = 'middle'; g.font = '11px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
    rows.forEach((row, r) => {
      let x = left;
      const y = 8 + r * 16 + 6;
      for (const item of row) {
        if (item.ramp) {
          const grad = g.createLinearGradient(x, 0, x + 32, 0);
          RAMP.forEach((c, j) => grad.addColorStop(j / (RAMP.length - 1), 'rgb(' + c.join(',') + ')'));
          g.fillStyle = grad; g.fillRect(x, y - 4, 32, 8); x += 40;
        } else {
          g.fillStyle = item.colour; g.fillRect(x, y - 1.5, 14, 3); x += 18;
        }
        g.fillStyle = '#2b3138'; g.fillText(item.text, x, y);
        x += item.w - (item.ramp ? 40 : 18);
      }
    });
  }

  // ---- run history ----
  let runsBusy = false, runsText = '';
  function loadRuns() {
    if (runsBusy) return;
    runsBusy = true;
    fetch('api/runs?limit=50', { cache: 'no-store' })
      .then((r) => { if (!r.ok) throw new Error('HTTP ' + r.status); return r.text(); })
      .then((text) => {
        setText($('runs-note'), '');
        if (text !== runsText) { runsText = text; renderRuns(JSON.parse(text)); }
      })
      .catch((err) => setText($('runs-note'), '(could not load: ' + err.message + ')'))
      .finally(() => { runsBusy = false; });
  }
  function renderRuns(runs) {
    if (!Array.isArray(runs)) runs = [];
    const body = el('tbody');
    body.id = 'runs-body';
    const now = Date.now() / 1000;
    for (const r of runs) {
      const row = el('tr');
      row.dataset.runId = r.id;
      row.dataset.device = r.device || '';
      const ended = isNum(r.ended_at) ? r.ended_at : r.state === 'running' ? now : null;
      const cells = [fmtInt(r.id), r.device || DASH, fmtInt(r.device_run), r.title || DASH, null, r.reason || DASH,
        fmtTime(r.started_at), ended !== null && isNum(r.started_at) ? fmtDuration(ended - r.started_at) + (isNum(r.ended_at) ? '' : '\u2026') : DASH,
        fmtInt(r.packages), null];
      cells.forEach((text, i) => {
        const td = el('td', [0, 2, 8].includes(i) ? 'num' : i === 5 && r.reason ? 'error-text' : null, text === null ? undefined : text);
        td.dataset.label = RUN_COLUMNS[i];
        row.appendChild(td);
      });
      badge(row.cells[4].appendChild(el('span')), r.state);
      const dl = row.cells[9];
      dl.className = 'downloads';
      if (r.pruned) dl.appendChild(el('span', 'muted', 'pruned'));
      else {
        for (const [path, text] of [['csv', 'CSV'], ['pstrace.csv', 'PSTrace'], ['svg', 'SVG'], ['jsonl', 'JSONL']]) {
          const a = el('a', null, text);
          a.href = 'runs/' + encodeURIComponent(r.id) + '/' + path;
          a.setAttribute('download', '');
          dl.appendChild(a);
        }
      }
      body.appendChild(row);
    }
    $('runs-body').replaceWith(body);
    $('runs-empty').hidden = runs.length > 0;
  }

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
    es.addEventListener('status', (e) => parse(e, applyStatus));
    es.addEventListener('plot', (e) => parse(e, applyPlot));
    es.onerror = () => {
      if (es !== source) return;
      if (es.readyState === EventSource.CLOSED) {  // the browser gave up (e.g. HTTP error): retry ourselves
        setConn('closed', 'disconnected \u2013 retrying\u2026');
        setTimeout(() => { if (es === source) connect(); }, 5000);
      } else setConn('reconnecting', 'reconnecting\u2026');
    };
  }
  // A gap in a plot: reconnect so the server sends every plot afresh (reset), not too often.
  function resync() {
    if (Date.now() - lastResync < RESYNC_MS) return;
    lastResync = Date.now();
    connect();
  }

  function tick() {  // a quiet stream (e.g. the rig hung) shows as stale
    if ($('conn').dataset.state === 'open' && lastStatusAt && Date.now() - lastStatusAt > 5000) {
      setConn('stale', 'no update for ' + fmtDuration((Date.now() - lastStatusAt) / 1000));
    } else if ($('conn').dataset.state === 'stale' && Date.now() - lastStatusAt <= 5000) setConn('open', 'live');
  }

  function start() {
    const statusLoaded = fetch('api/status', { cache: 'no-store' })
      .then((r) => { if (!r.ok) throw new Error('HTTP ' + r.status); return r.json(); })
      .then(applyStatus)
      .catch((err) => setText($('devices-empty'), 'Could not load the status: ' + err.message));
    statusLoaded.then(connect);
    loadRuns();
    setInterval(loadRuns, RUNS_EVERY_MS);
    setInterval(tick, 1000);
  }
  start();
})();
