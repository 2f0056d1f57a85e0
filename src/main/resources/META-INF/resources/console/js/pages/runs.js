// Runs: filter by workflow, status and tag (key:value), find by run id (whole, or any part of it, such as the last 12
// digits shown) or idempotency key, page by cursor, refresh every 3 s (pausable),
// select runs to cancel or retry in bulk, or reset/cancel every run the filter matches through a server-side bulk
// action (previewed first). The list answers summaries (each node's state and attempts, no input or output), so a
// refresh costs the same whatever the runs carry; the run page reads the full run.
import { h, clear, badge, mono, shortId, ago, when, problem, notice, flash, runId, tagChips } from '../ui.js';
import { request, get, enc, ApiError } from '../api.js';
import { can } from '../auth.js';

const REFRESH_MS = 3000;
const STATUSES = ['', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ID_PART = /^[0-9a-f-]{4,35}$/i; // what GET /runs?runId= takes as a part of a run id

export function render(main, _params, { navigate }) {
  const q = new URLSearchParams(location.search);
  const filter = { workflow: q.get('workflow') || '', status: q.get('status') || '', key: q.get('key') || '', id: q.get('id') || '', tag: q.get('tag') || '' };
  const cursors = [null];
  let page = 0;
  let paused = false;
  let items = [];
  const selected = new Set();

  const wfSelect = h('select', { 'data-filter': 'workflow' }, h('option', { value: '' }, 'all workflows'));
  const statusSelect = h('select', { 'data-filter': 'status' }, STATUSES.map(s => h('option', { value: s }, s || 'any status')));
  statusSelect.value = filter.status;
  // One tag, key:value as the API takes it; the server says what is wrong with one it cannot read.
  const tagInput = h('input', { type: 'text', placeholder: 'tag key:value, e.g. customer:c-42', size: 28, 'data-filter': 'tag', value: filter.tag });
  const search = h('input', { type: 'text', placeholder: 'run id (or part of it) or idempotency key', size: 38, 'data-filter': 'search', value: filter.id || filter.key });
  const pauseBtn = h('button', { 'data-action': 'pause' }, 'Pause');
  const liveMark = h('span', { class: 'live on' }, h('span', { class: 'dot' }), 'refreshing every 3 s');
  // Two boxes: the list's own load error, replaced by every refresh, and the answers to what the user did, which a
  // refresh leaves alone (they go after a while, or when dismissed).
  const loadProblem = h('div', { 'data-load-problem': '' });
  const message = h('div', { 'data-message': '' });
  const bulk = h('div', { class: 'row', style: 'margin:6px 0' });
  // The server-side bulk action's preview and progress: apart from the message line, which every refresh clears.
  const serverBox = h('div', { 'data-server-bulk': '' });
  const table = h('div');
  const pager = h('div', { class: 'row pager' });

  get('/workflows').then(d => {
    for (const w of d.items) wfSelect.append(h('option', { value: w.name }, w.name));
    wfSelect.value = filter.workflow;
  }).catch(() => {});

  const apply = (mode = filter.id ? 'id' : 'key') => {
    filter.workflow = wfSelect.value;
    filter.status = statusSelect.value;
    const text = search.value.trim();
    filter.key = mode === 'key' ? text : '';
    filter.id = mode === 'id' ? text : '';
    filter.tag = tagInput.value.trim();
    const s = new URLSearchParams();
    if (filter.workflow) s.set('workflow', filter.workflow);
    if (filter.status) s.set('status', filter.status);
    if (filter.key) s.set('key', filter.key);
    if (filter.tag) s.set('tag', filter.tag);
    if (filter.id) s.set('id', filter.id);
    history.replaceState({}, '', '/console/runs' + (s.toString() ? '?' + s : ''));
    cursors.length = 1; page = 0; selected.clear();
    load();
  };
  wfSelect.addEventListener('change', () => apply());
  statusSelect.addEventListener('change', () => apply());
  search.addEventListener('keydown', e => { if (e.key === 'Enter') findOrFilter(); });
  tagInput.addEventListener('keydown', e => { if (e.key === 'Enter') apply(); });

  async function findOrFilter() {
    const text = search.value.trim();
    if (UUID.test(text)) { // a run id: open it (a 404 says it is not in your tenant)
      try {
        await request('GET', '/runs/' + enc(text));
        navigate('/console/runs/' + text);
      } catch (e) {
        flash(message, problem(e));
      }
      return;
    }
    if (ID_PART.test(text)) { // maybe part of a run id: one match opens it, several are listed, none means a key
      try {
        const { items } = await get('/runs?limit=2&runId=' + enc(text));
        if (items.length === 1) { navigate('/console/runs/' + items[0].runId); return; }
        if (items.length > 1) { apply('id'); return; }
      } catch (e) {
        flash(message, problem(e));
        return;
      }
    }
    apply('key');
  }

  pauseBtn.addEventListener('click', () => {
    paused = !paused;
    pauseBtn.textContent = paused ? 'Resume' : 'Pause';
    liveMark.className = 'live' + (paused ? '' : ' on');
    liveMark.lastChild.textContent = paused ? 'paused' : 'refreshing every 3 s';
  });

  async function load() {
    const s = new URLSearchParams({ limit: '25' });
    if (filter.workflow) s.set('workflow', filter.workflow);
    if (filter.status) s.set('status', filter.status);
    if (filter.key) s.set('idempotencyKey', filter.key);
    if (filter.tag) s.set('tag', filter.tag);
    if (filter.id) s.set('runId', filter.id);
    if (cursors[page]) s.set('cursor', cursors[page]);
    try {
      const data = await get('/runs?' + s);
      items = data.items;
      cursors[page + 1] = data.nextCursor || null;
      clear(loadProblem);
      draw();
    } catch (e) {
      clear(loadProblem, problem(e));
    }
  }

  function draw() {
    const all = h('input', { type: 'checkbox', title: 'select all on this page', checked: items.length > 0 && items.every(r => selected.has(r.runId)) });
    all.addEventListener('change', () => { items.forEach(r => all.checked ? selected.add(r.runId) : selected.delete(r.runId)); draw(); });
    clear(table, items.length === 0 ? h('div', { class: 'panel muted', 'data-empty': '' }, 'No runs match.') :
      h('table', { 'data-runs': '' },
        h('thead', {}, h('tr', {}, h('th', { style: 'width:24px' }, all), h('th', {}, 'Run'), h('th', {}, 'Workflow'),
          h('th', {}, 'Status'), h('th', {}, 'Nodes'), h('th', {}, 'Idempotency key'), h('th', {}, 'Tags'), h('th', {}, 'Tier'), h('th', {}, 'Started'), h('th', {}, 'Updated'))),
        h('tbody', {}, items.map(r => {
          const box = h('input', { type: 'checkbox', checked: selected.has(r.runId), 'data-select': r.runId });
          box.addEventListener('click', e => e.stopPropagation());
          box.addEventListener('change', () => { box.checked ? selected.add(r.runId) : selected.delete(r.runId); drawBulk(); });
          const nodes = Object.values(r.nodes || {});
          const done = nodes.filter(n => n.state === 'SUCCEEDED' || n.state === 'SKIPPED').length;
          return h('tr', { class: 'clickable', 'data-run': r.runId, onclick: e => { if (!e.target.closest('a[data-link]')) navigate('/console/runs/' + r.runId); } },
            h('td', {}, box),
            h('td', {}, runId(r.runId, { href: '/console/runs/' + r.runId })),
            h('td', {}, r.workflow, h('span', { class: 'muted' }, ` r${r.revision}`)),
            h('td', {}, badge(r.status)),
            h('td', { class: 'mono' }, `${done}/${nodes.length}`),
            h('td', {}, r.idempotencyKey ? mono(r.idempotencyKey) : h('span', { class: 'muted' }, '—')),
            h('td', { 'data-tags': '' }, r.tags ? tagChips(r.tags, true) : h('span', { class: 'muted' }, '—')),
            h('td', {}, r.tier),
            h('td', { title: r.createdAt }, when(r.createdAt)),
            h('td', { title: r.updatedAt }, ago(r.updatedAt)));
        }))));
    clear(pager,
      h('button', { disabled: page === 0, onclick: () => { page--; load(); } }, '← Newer'),
      h('span', { class: 'muted' }, `page ${page + 1}`),
      h('button', { disabled: !cursors[page + 1], 'data-action': 'next-page', onclick: () => { page++; load(); } }, 'Older →'));
    drawBulk();
  }

  function drawBulk() {
    const chosen = items.filter(r => selected.has(r.runId));
    clear(bulk, h('span', { class: 'muted' }, `${selected.size} selected`),
      can('operate') ? [
        h('button', { class: 'danger', disabled: chosen.length === 0, 'data-action': 'bulk-cancel', onclick: () => bulkCancel(chosen) }, 'Cancel selected'),
        h('button', { disabled: chosen.length === 0, 'data-action': 'bulk-retry', onclick: () => bulkRetry(chosen) }, 'Retry failed nodes of selected'),
        h('span', { class: 'muted small' }, ' or every run the filter matches, done by the server:'),
        h('button', { 'data-action': 'server-bulk-reset', onclick: () => serverBulk('reset') }, 'Reset all matching…'),
        h('button', { class: 'danger', 'data-action': 'server-bulk-cancel', onclick: () => serverBulk('cancel') }, 'Cancel all matching…'),
      ] : h('span', { class: 'muted small' }, 'Bulk cancel and retry need the operator role.'));
  }

  // A server-side bulk action on the filter (POST /bulk-actions): a dry run first shows how many runs match and some
  // of them; only the confirmation starts the job, whose progress is then shown until it ends.
  async function serverBulk(action) {
    const f = {};
    if (filter.workflow) f.workflow = filter.workflow;
    if (filter.tag) f.tag = filter.tag;
    f.status = filter.status || (action === 'reset' ? 'FAILED' : 'RUNNING');
    let preview;
    try {
      preview = (await request('POST', '/bulk-actions', { body: { action, filter: f, dryRun: true } })).data;
    } catch (e) { clear(serverBox, problem(e)); return; }
    const current = h('input', { type: 'checkbox', 'data-bulk': 'current' });
    const go = h('button', { class: action === 'cancel' ? 'danger' : 'primary', 'data-action': 'server-bulk-confirm', disabled: preview.matched === 0,
      onclick: () => startBulk(action, f, current.checked) }, `${action === 'reset' ? 'Reset' : 'Cancel'} ${preview.matched} run(s)`);
    clear(serverBox, h('div', { class: 'panel', 'data-bulk-preview': '', 'data-matched': preview.matched },
      h('b', {}, `${preview.matched} run(s) match `), mono(JSON.stringify(f)),
      action === 'reset' ? h('div', { class: 'muted small' }, 'A reset reopens each run\'s failed nodes and what is downstream of them.') : null,
      preview.sample.length ? h('div', { class: 'muted small' }, 'For example: ', preview.sample.map(id => [mono(shortId(id)), ' '])) : null,
      h('div', { class: 'row', style: 'margin-top:6px' },
        action === 'reset' ? h('label', {}, current, ' use the workflow\'s current revision') : null,
        go, h('button', { onclick: () => clear(serverBox) }, 'Never mind'))));
  }

  async function startBulk(action, f, toCurrent) {
    const body = { action, filter: f };
    if (toCurrent) body.toRevision = 'current';
    let job;
    try {
      job = (await request('POST', '/bulk-actions', { body })).data;
    } catch (e) { clear(serverBox, problem(e)); return; }
    const show = j => clear(serverBox, notice(j.status === 'RUNNING' ? 'info' : 'ok', `Bulk ${j.action}: ${j.status}`,
      h('span', { 'data-bulk-progress': j.status, 'data-done': j.done, 'data-skipped': j.skipped, 'data-failed': j.failed },
        `matched ${j.matched}, done ${j.done}, skipped ${j.skipped} (changed meanwhile), failed ${j.failed}`)));
    show(job);
    while (job.status === 'RUNNING') {
      await new Promise(r => setTimeout(r, 1000));
      try { job = await get(`/bulk-actions/${enc(job.id)}`); } catch (e) { clear(serverBox, problem(e)); return; }
      show(job);
    }
    load();
  }

  async function bulkCancel(chosen) {
    if (!confirm(`Cancel ${chosen.length} run(s)?`)) return;
    const results = await Promise.all(chosen.map(r => request('POST', `/runs/${r.runId}/cancel`)
      .then(() => [r, null]).catch(e => [r, e])));
    report('Cancel', results);
  }

  // Retry = PATCH each selected run's FAILED (and RUNNING task) nodes with action retry and If-Match from the version
  // this list showed. The server decides on the run as it is: a finished run, or a node no longer where retry applies,
  // is refused with 409 and nothing of that run's change is saved; that answer is shown per run.
  async function bulkRetry(chosen) {
    const results = await Promise.all(chosen.map(r => {
      const nodes = Object.entries(r.nodes || {}).filter(([, n]) => n.state === 'FAILED' || n.state === 'RUNNING');
      if (nodes.length === 0) return [r, new Error('no failed or running node to retry')];
      const body = { nodes: Object.fromEntries(nodes.map(([id]) => [id, { action: 'retry' }])) };
      return request('PATCH', `/runs/${r.runId}`, { body, ifMatch: r.version }).then(() => [r, null]).catch(e => [r, e]);
    }));
    report('Retry', results);
  }

  function report(what, results) {
    const failed = results.filter(([, e]) => e);
    flash(message, failed.length === 0
      ? notice('ok', `${what}: done for ${results.length} run(s).`)
      : notice('error', `${what}: ${results.length - failed.length} of ${results.length} done; these were refused and nothing was saved for them:`,
        h('ul', {}, failed.map(([r, e]) => h('li', {}, mono(shortId(r.runId)), ' ',
          e instanceof ApiError ? `${e.status} ${e.problem.type ? e.problem.type.split('/').pop() : ''}: ${e.message}` : e.message)))));
    selected.clear();
    load();
  }

  main.append(...[
    h('h1', {}, 'Runs', h('span', { class: 'grow' }), liveMark, pauseBtn),
    h('div', { class: 'panel row' }, wfSelect, statusSelect, tagInput, search,
      h('button', { 'data-action': 'search', onclick: findOrFilter }, 'Search'),
      h('button', { onclick: () => { search.value = ''; tagInput.value = ''; wfSelect.value = ''; statusSelect.value = ''; apply('key'); } }, 'Clear')),
    can('start') ? startForm(navigate) : null,
    loadProblem, message, bulk, serverBox, table, pager].filter(Boolean));
  load();
  const timer = setInterval(() => { if (!paused && !document.hidden) load(); }, REFRESH_MS);
  return () => clearInterval(timer);
}

function startForm(navigate) {
  const wf = h('select', { 'data-start': 'workflow' });
  get('/workflows').then(d => d.items.forEach(w => wf.append(h('option', { value: w.name }, w.name)))).catch(() => {});
  const input = h('input', { type: 'text', size: 40, placeholder: 'input JSON, e.g. {"orderId": "A-1"}', 'data-start': 'input' });
  const key = h('input', { type: 'text', size: 22, placeholder: 'idempotency key (optional)', 'data-start': 'key' });
  const out = h('span');
  const go = async () => {
    let body = {};
    if (input.value.trim()) {
      try { body.input = JSON.parse(input.value); } catch (e) { clear(out, h('span', { class: 'badge s-FAILED' }, 'input is not JSON')); return; }
    }
    if (key.value.trim()) body.idempotencyKey = key.value.trim();
    try {
      const { data } = await request('POST', `/workflows/${enc(wf.value)}/runs`, { body });
      navigate('/console/runs/' + data.runId);
    } catch (e) {
      clear(out, problem(e));
    }
  };
  return h('details', { class: 'panel' }, h('summary', {}, 'Start a run'),
    h('div', { class: 'row', style: 'margin-top:8px' }, wf, input, key, h('button', { class: 'primary', 'data-action': 'start', onclick: go }, 'Start')), out);
}
