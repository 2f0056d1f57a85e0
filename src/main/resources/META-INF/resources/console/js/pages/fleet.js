// Fleet: the tenant's queue depth and lag per tier, tasks leased now, RUNNING runs, recent forced failures, and charts
// of the last hour drawn from what the server keeps itself (GET /fleet/history), so no Prometheus is needed to see them.
import { h, clear, when, problem, runId } from '../ui.js';
import { get } from '../api.js';
import { lineChart, duration } from '../chart.js';

const NOW_MS = 5000;
const HISTORY_MS = 15000;

export function render(main) {
  const box = h('div');
  const charts = h('div', { 'data-charts': '' }, h('div', { class: 'muted small' }, 'Loading the last hour…'));
  main.append(h('h1', {}, 'Fleet', h('span', { class: 'sub' }, 'refreshes every 5 s; charts every 15 s')), box,
    h('h2', {}, 'The last hour, per minute'), charts);

  async function load() {
    try {
      const f = await get('/fleet');
      clear(box,
        h('div', { class: 'tiles' },
          h('div', { class: 'tile', 'data-tile': 'running' }, h('div', { class: 'v' }, f.runningRuns), h('div', { class: 'l' }, 'runs RUNNING')),
          h('div', { class: 'tile', 'data-tile': 'leased' }, h('div', { class: 'v' }, f.leasedTasks), h('div', { class: 'l' }, 'tasks leased by workers now')),
          f.tiers.map(t => h('div', { class: 'tile', 'data-tier': t.tier }, h('div', { class: 'v' }, t.depth, h('span', { class: 'sub' }, ` due · ${t.lagSeconds.toFixed(1)} s lag`)),
            h('div', { class: 'l' }, `tier ${t.tier}`)))),
        h('h2', {}, 'Recent forced failures (stuck or livelock)'),
        f.forcedFailures.length === 0 ? h('div', { class: 'panel muted' }, 'None. Ductor has not failed a run by itself.') :
          h('table', {}, h('thead', {}, h('tr', {}, h('th', {}, 'Run'), h('th', {}, 'Workflow'), h('th', {}, 'Reason'), h('th', {}, 'At'))),
            h('tbody', {}, f.forcedFailures.map(x => h('tr', {},
              h('td', {}, runId(x.runId, { href: '/console/runs/' + x.runId })),
              h('td', {}, x.workflow), h('td', {}, h('span', { class: 'badge s-FAILED' }, x.reason)), h('td', {}, when(x.at)))))),
        h('div', { class: 'muted small', style: 'margin-top:10px' }, `as of ${when(f.at)}`));
    } catch (e) {
      clear(box, problem(e));
    }
  }

  async function loadHistory() {
    try {
      const history = await get('/fleet/history');
      clear(charts, drawHistory(history));
    } catch (e) {
      clear(charts, problem(e));
    }
  }

  load();
  loadHistory();
  const timers = [setInterval(() => { if (!document.hidden) load(); }, NOW_MS),
    setInterval(() => { if (!document.hidden) loadHistory(); }, HISTORY_MS)];
  return () => timers.forEach(clearInterval);
}

function drawHistory({ minutes, tiers }) {
  const times = minutes.map(m => m.at);
  const col = f => minutes.map(f);
  const tierNames = [...new Set([...tiers, ...minutes.flatMap(m => Object.keys(m.queueDepth || {}))])];
  const sampled = minutes.filter(m => m.queueDepth).length;
  // The current minute before any pod sampled it (at second 5) is unknown yet, not a fleet without pods.
  const last = minutes.length - 1;
  const pods = col((m, i) => i === last && !m.queueDepth && m.pods === 0 ? null : m.pods);
  return h('div', {},
    h('div', { class: 'charts' },
      lineChart({ key: 'runs', title: 'Runs per minute', times,
        series: [{ name: 'started', values: col(m => m.started) }, { name: 'finished', values: col(m => m.finished) }] }),
      lineChart({ key: 'duration', title: 'Time to finish', times, format: duration,
        series: [{ name: 'p50', values: col(m => m.p50Ms) }, { name: 'p99', values: col(m => m.p99Ms) }] }),
      lineChart({ key: 'queue', title: 'Queue depth per tier', times,
        series: tierNames.map(t => ({ name: t, values: col(m => m.queueDepth ? (m.queueDepth[t] ?? 0) : null) })) }),
      lineChart({ key: 'failures', title: 'Failed runs per minute', times, series: [{ name: 'failed', values: col(m => m.failed) }] }),
      lineChart({ key: 'pods', title: 'Pods alive', times, series: [{ name: 'pods', values: pods }] })),
    h('div', { class: 'muted small' }, `${minutes.length} minutes; the queue and the pods are sampled once a minute `
      + `(${sampled} of these minutes have a sample: a gap is a minute no pod sampled). Hover a chart for a minute's values.`));
}
