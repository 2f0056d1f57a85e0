// Small line charts in inline SVG, for the fleet page: one chart, several series over the same minutes, no library.
// A null value is a gap in its line (a minute with nothing to say, e.g. no sample), never drawn as zero.
import { h } from './ui.js';

const NS = 'http://www.w3.org/2000/svg';
const W = 480, H = 150, LEFT = 48, RIGHT = 8, TOP = 8, BOTTOM = 20;

function s(tag, attrs, ...children) {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) if (v !== undefined && v !== null) el.setAttribute(k, v);
  for (const c of children.flat()) if (c !== null && c !== undefined) el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return el;
}

/** A "nice" upper bound for the axis: 1, 2 or 5 times a power of ten, at least {@code max}. */
export function niceMax(max) {
  if (!(max > 0)) return 1;
  const p = Math.pow(10, Math.floor(Math.log10(max)));
  for (const m of [1, 2, 5, 10]) if (m * p >= max) return m * p;
  return 10 * p;
}

const plain = v => Number.isInteger(v) ? String(v) : v.toFixed(1);

/** Milliseconds as a person reads them: 840 ms, 4.2 s, 3.5 min. */
export function duration(ms) {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60000) return `${(ms / 1000).toFixed(ms < 10000 ? 1 : 0)} s`;
  return `${(ms / 60000).toFixed(1)} min`;
}

const hhmm = iso => new Date(iso).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });

/**
 * {@code times}: the minutes (ISO), oldest first. {@code series}: [{name, values}] with a value (or null) per minute.
 * {@code format}: a value as text (axis and hover). {@code key}: the chart's data-chart name, for tests and links.
 */
export function lineChart({ key, title, times, series, format = plain }) {
  const all = series.flatMap(x => x.values).filter(v => v !== null && v !== undefined);
  const top = niceMax(Math.max(0, ...all));
  const n = Math.max(times.length, 2);
  const x = i => LEFT + (i / (n - 1)) * (W - LEFT - RIGHT);
  const y = v => TOP + (1 - v / top) * (H - TOP - BOTTOM);
  const fmt = v => (v === null || v === undefined) ? '—' : format(v);

  const svg = s('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': title },
    s('line', { class: 'axis', x1: LEFT, y1: y(0), x2: W - RIGHT, y2: y(0) }),
    s('line', { class: 'axis', x1: LEFT, y1: y(top), x2: W - RIGHT, y2: y(top) }),
    s('text', { x: LEFT - 4, y: y(top) + 4, 'text-anchor': 'end' }, fmt(top)),
    s('text', { x: LEFT - 4, y: y(0) + 4, 'text-anchor': 'end' }, '0'),
    times.length ? [
      s('text', { x: LEFT, y: H - 5, 'text-anchor': 'start' }, hhmm(times[0])),
      s('text', { x: (LEFT + W - RIGHT) / 2, y: H - 5, 'text-anchor': 'middle' }, hhmm(times[Math.floor(times.length / 2)])),
      s('text', { x: W - RIGHT, y: H - 5, 'text-anchor': 'end' }, hhmm(times[times.length - 1]))] : null);

  series.forEach((line, i) => {
    // One path, a new segment ("M") after every gap.
    let d = '';
    let pen = false;
    line.values.forEach((v, j) => {
      if (v === null || v === undefined) { pen = false; return; }
      d += `${pen ? 'L' : 'M'}${x(j).toFixed(1)},${y(v).toFixed(1)} `;
      pen = true;
    });
    const known = line.values.filter(v => v !== null && v !== undefined);
    svg.append(s('path', { class: `series c${i % 5}`, d: d.trim() || 'M0,0', 'data-series': line.name,
      'data-points': known.length, 'data-max': known.length ? Math.max(...known) : '' }));
  });

  // A transparent column per minute whose title lists that minute's values: hover shows them, no script needed.
  times.forEach((t, j) => {
    const half = (W - LEFT - RIGHT) / (n - 1) / 2;
    svg.append(s('rect', { class: 'hover', x: Math.max(LEFT, x(j) - half), y: TOP, width: 2 * half, height: H - TOP - BOTTOM },
      s('title', {}, `${hhmm(t)}: ` + series.map(line => `${line.name} ${fmt(line.values[j])}`).join(', '))));
  });

  return h('div', { class: 'chart', 'data-chart': key },
    h('h3', {}, title, h('span', { class: 'legend' }, series.map((line, i) => h('span', {}, h('i', { class: `c${i % 5}` }), line.name)))),
    svg);
}
