// Fleet: the tenant's queue depth and lag per tier, tasks leased now, RUNNING runs, recent forced failures.
import { h, clear, mono, shortId, when, problem } from '../ui.js';
import { get } from '../api.js';

export function render(main) {
  const box = h('div');
  main.append(h('h1', {}, 'Fleet', h('span', { class: 'sub' }, 'refreshes every 5 s')), box);
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
              h('td', {}, h('a', { href: '/console/runs/' + x.runId, 'data-link': '' }, mono(shortId(x.runId), { title: x.runId }))),
              h('td', {}, x.workflow), h('td', {}, h('span', { class: 'badge s-FAILED' }, x.reason)), h('td', {}, when(x.at)))))),
        h('div', { class: 'muted small', style: 'margin-top:10px' }, `as of ${when(f.at)}; metrics over time: /q/metrics (Prometheus), e.g. in Grafana.`));
    } catch (e) {
      clear(box, problem(e));
    }
  }
  load();
  const timer = setInterval(() => { if (!document.hidden) load(); }, 5000);
  return () => clearInterval(timer);
}
