// A workflow's DAG: longest-path layering (a node sits one layer right of its deepest dependency), parallel
// branches stacked in a layer, a barycentre pass against the previous layer to keep edges short, drawn as SVG.
// SKIPPED nodes are dashed and grey, an edge into a node with `when` or a `runIf` other than the default is labelled
// with its condition, and a fan-out (`forEach`) shows its items SUCCEEDED out of all of them.
const SVG = 'http://www.w3.org/2000/svg';
const W = 168, H = 48, GAP_Y = 18, PAD = 16;

const FILL = {
  PENDING: ['#f1f3f5', '#9ca3af'], RUNNING: ['#dbeafe', '#2563eb'], WAITING: ['#ede9fe', '#7c3aed'],
  SUCCEEDED: ['#dcfce7', '#16a34a'], FAILED: ['#fee2e2', '#dc2626'], SKIPPED: ['#e5e7eb', '#6b7280'],
  CANCELLED: ['#fef3c7', '#d97706'], DEFINED: ['#ffffff', '#94a3b8'],
};

/** Layers of node ids; throws on a cycle (the server refuses those, but a typed draft may have one). */
export function layers(nodes) {
  const byId = new Map(nodes.map(n => [n.id, n]));
  const depth = new Map();
  const visiting = new Set();
  const visit = id => {
    if (depth.has(id)) return depth.get(id);
    if (visiting.has(id)) throw new Error('cycle through ' + id);
    visiting.add(id);
    const deps = (byId.get(id)?.dependsOn || []).filter(d => byId.has(d));
    const d = deps.length ? 1 + Math.max(...deps.map(visit)) : 0;
    visiting.delete(id);
    depth.set(id, d);
    return d;
  };
  nodes.forEach(n => visit(n.id));
  const out = [];
  nodes.forEach(n => { (out[depth.get(n.id)] ||= []).push(n.id); });
  for (let i = 1; i < out.length; i++) { // barycentre: order by the mean position of the dependencies
    const prev = new Map(out[i - 1].map((id, k) => [id, k]));
    const score = id => {
      const ps = (byId.get(id).dependsOn || []).filter(d => prev.has(d)).map(d => prev.get(d));
      return ps.length ? ps.reduce((a, b) => a + b, 0) / ps.length : Infinity;
    };
    out[i] = out[i].map((id, k) => [id, score(id), k]).sort((a, b) => a[1] - b[1] || a[2] - b[2]).map(x => x[0]);
  }
  return out;
}

function el(tag, attrs, text) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

function describe(n) {
  if (n.type === 'task') return n.handler || 'task';
  if (n.type === 'signal') return 'signal ' + (n.signal || '');
  if (n.type === 'timer') return 'timer ' + (n.duration || '');
  if (n.type === 'workflow') return 'workflow ' + (n.workflow || '');
  return n.type || '';
}

/** The condition on the edges into {@code n}: its runIf when not the default, and its `when`; null for none. */
export function condition(n) {
  const parts = [];
  if (n.runIf && n.runIf !== 'allSucceeded') parts.push(n.runIf);
  if (typeof n.when === 'string' && n.when.trim()) parts.push('if ' + n.when.trim());
  return parts.length ? parts.join(' · ') : null;
}

function shorten(text, max) {
  return text.length > max ? text.slice(0, max - 1) + '…' : text;
}

/** A fan-out's progress, {done, total}, from its node view's items; null before the items are known. */
export function progress(s) {
  if (!s || !Array.isArray(s.items)) return null;
  return { done: s.items.filter(i => i.state === 'SUCCEEDED').length, total: s.items.length };
}

/**
 * Draws {@code nodes} (definition nodes) coloured by {@code states} ({id: {state, attempts}}, optional) into an
 * SVG element. {@code onSelect(id)} is called on a click; {@code selected} is outlined; {@code flagged} (node ids)
 * are drawn as offending (a 422's violations).
 */
export function drawDag(allNodes, { states = {}, selected = null, onSelect = null, flagged = [] } = {}) {
  const nodes = (allNodes || []).filter(n => n && typeof n.id === 'string');
  let ls;
  try {
    ls = layers(nodes);
  } catch (e) {
    const box = document.createElement('div');
    box.className = 'notice error';
    box.textContent = 'The DAG cannot be drawn: ' + e.message;
    return box;
  }
  const tallest = Math.max(1, ...ls.map(l => l.length));
  const GAP_X = nodes.some(n => condition(n) && (n.dependsOn || []).length) ? 132 : 64; // room for edge labels
  const width = PAD * 2 + ls.length * W + Math.max(0, ls.length - 1) * GAP_X;
  const height = PAD * 2 + tallest * H + (tallest - 1) * GAP_Y;
  const pos = new Map();
  ls.forEach((layer, i) => {
    const offset = (tallest - layer.length) * (H + GAP_Y) / 2;
    layer.forEach((id, k) => pos.set(id, { x: PAD + i * (W + GAP_X), y: PAD + offset + k * (H + GAP_Y) }));
  });
  const svg = el('svg', { width, height, viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': 'workflow DAG' });
  for (const n of nodes) {
    for (const d of n.dependsOn || []) {
      const a = pos.get(d), b = pos.get(n.id);
      if (!a || !b) continue;
      const x1 = a.x + W, y1 = a.y + H / 2, x2 = b.x, y2 = b.y + H / 2, mx = (x1 + x2) / 2;
      svg.append(el('path', { class: 'edge', d: `M${x1},${y1} C${mx},${y1} ${mx},${y2} ${x2 - 4},${y2}`, 'marker-end': '' }));
      svg.append(el('path', { d: `M${x2 - 6},${y2 - 4} L${x2},${y2} L${x2 - 6},${y2 + 4}`, fill: 'none', stroke: '#9aa5b1', 'stroke-width': 1.4 }));
      const cond = condition(n);
      if (cond) {
        const label = el('text', { class: 'edge-label', x: mx, y: (y1 + y2) / 2 - 4, 'text-anchor': 'middle', 'data-edge-label': `${d}->${n.id}` }, shorten(cond, 20));
        label.append(el('title', {}, cond));
        svg.append(label);
      }
    }
  }
  for (const n of nodes) {
    const p = pos.get(n.id);
    const s = states[n.id];
    const state = s ? s.state : 'DEFINED';
    const [fill, stroke] = FILL[state] || FILL.DEFINED;
    const g = el('g', {
      class: 'node' + (selected === n.id ? ' selected' : ''), transform: `translate(${p.x},${p.y})`,
      'data-node': n.id, 'data-state': state, tabindex: 0,
    });
    const bad = flagged.includes(n.id);
    if (bad) g.setAttribute('data-flagged', '');
    if (state === 'SKIPPED') g.classList.add('skipped');
    const dash = bad ? '4 3' : state === 'SKIPPED' ? '5 4' : '';
    g.append(el('rect', { width: W, height: H, rx: 6, fill, stroke: bad ? '#b91c1c' : stroke, 'stroke-dasharray': dash }));
    const fan = n.forEach ? progress(s) : null;
    g.append(el('text', { x: 10, y: 19 }, shorten(n.id, fan ? 14 : 22)));
    if (fan) {
      g.append(el('text', { x: W - 8, y: 19, 'text-anchor': 'end', class: 'progress', 'data-progress': `${fan.done}/${fan.total}` }, `${fan.done}/${fan.total}`));
      const filled = fan.total ? Math.round((W - 12) * fan.done / fan.total) : 0;
      g.append(el('rect', { x: 6, y: H - 6, width: W - 12, height: 3, rx: 1.5, fill: '#e5e7eb' }));
      g.append(el('rect', { x: 6, y: H - 6, width: filled, height: 3, rx: 1.5, fill: '#16a34a' }));
    }
    const kind = n.forEach ? (n.handler || 'task') + ' ×each' : describe(n);
    const meta = kind + (s ? ` · ${state.toLowerCase()}${s.attempts && !fan ? ' · ×' + s.attempts : ''}` : '');
    g.append(el('text', { x: 10, y: 36, class: 'meta' }, shorten(meta, 28)));
    const cond = condition(n);
    if (cond && !(n.dependsOn || []).some(d => pos.has(d))) { // no edge to carry it: above the node
      g.append(el('text', { class: 'edge-label', x: 4, y: -4, 'data-edge-label': `->${n.id}` }, shorten(cond, 26)));
    }
    g.append(el('title', {}, `${n.id}: ${describe(n)}${n.forEach ? `\nforEach ${n.forEach}` : ''}${cond ? `\n${cond}` : ''}`
      + `${s ? `\nstate ${state}, attempts ${s.attempts}` : ''}${fan ? `\nitems ${fan.done}/${fan.total} succeeded` : ''}`
      + `${s && s.skippedBy ? `\nskipped by an ${s.skippedBy}` : ''}`));
    if (onSelect) {
      g.addEventListener('click', () => onSelect(n.id));
      g.addEventListener('keydown', e => { if (e.key === 'Enter') onSelect(n.id); });
    }
    svg.append(g);
  }
  const wrap = document.createElement('div');
  wrap.className = 'dag';
  wrap.append(svg);
  return wrap;
}
