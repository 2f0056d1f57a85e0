// One run: its DAG coloured by state (live, pushed by the server), the selected node's attempts, output and error,
// a timeline of attempts from the history, the history table, input and output, and the actions the role allows.
import { h, clear, badge, mono, when, whenMs, json, problem, notice, flash, freshKey, tagChips } from '../ui.js';
import { request, get, enc, ApiError } from '../api.js';
import { can } from '../auth.js';
import { drawDag } from '../dag.js';
import { follow } from '../live.js';
import { conflictPanel } from '../conflict.js';

const TERMINAL = ['SUCCEEDED', 'FAILED', 'CANCELLED'];
const HISTORY_PAGE = 500;

export function render(main, [runId]) {
  let run = null;
  let definition = null;
  let history = [];
  let historyMore = false; // a page of the history was left unread (Link rel="next"); "Load more" reads it
  let historyLoading = null;
  let selected = null;
  let historyTimer = null;
  // The reset the user is composing: kept across redraws (every live update redraws) and across a 409.
  const resetChoice = { open: false, mode: 'failed', from: null, current: false, reopen: false };

  const header = h('h1', {}, 'Run ', mono(runId));
  const liveMark = h('span', { class: 'live', 'data-live': '' }, h('span', { class: 'dot' }), 'connecting');
  const message = h('div', { 'data-message': '' });
  const summary = h('div', { class: 'panel' });
  const actions = h('div');
  const dagBox = h('div', { 'data-dag': '' });
  const nodeBox = h('div', { class: 'panel', 'data-node-detail': '' });
  const timeline = h('div', { class: 'panel timeline', 'data-timeline': '' });
  const historyBox = h('div', { 'data-history': '' });
  const io = h('div', { class: 'cols' });

  main.append(header, message, summary, actions,
    h('h2', {}, 'DAG'), dagBox, nodeBox,
    h('h2', {}, 'Timeline of attempts'), timeline,
    io,
    h('h2', {}, 'History'), historyBox);

  async function loadDefinition() {
    try {
      definition = await get(`/workflows/${enc(run.workflow)}/revisions/${run.revision}`);
    } catch (e) {
      definition = { nodes: Object.keys(run.nodes).map(id => ({ id, type: '?' })) };
    }
  }

  // The history is paged (GET .../history?after=<seq>&limit=<n>, Link rel="next" while more follow): this page reads
  // one page at a time after the last seq it has, so a commit costs a read of only the transitions it added, and a
  // long history is read page by page as the reader asks ("Load more").
  function loadHistory() {
    if (historyLoading) return historyLoading;
    const after = history.length ? history[history.length - 1].seq : 0;
    historyLoading = request('GET', `/runs/${enc(runId)}/history?after=${after}&limit=${HISTORY_PAGE}`).then(({ data, next }) => {
      const last = history.length ? history[history.length - 1].seq : 0;
      history = history.concat(data.filter(t => t.seq > last));
      historyMore = next !== null;
      drawTimeline();
      drawHistory();
    }).catch(() => { /* the run view shows the error already */ }).finally(() => { historyLoading = null; });
    return historyLoading;
  }

  function scheduleHistory() {
    clearTimeout(historyTimer);
    // While a page is left unread the newest transitions are behind it: the reader loads on with "Load more".
    if (!historyMore) historyTimer = setTimeout(loadHistory, 120);
  }

  function apply(next) {
    const first = run === null;
    // A banner about the live run (a signal accepted, a cancellation requested) has no more to say once it finished.
    if (TERMINAL.includes(next.status)) message.querySelectorAll('[data-while-live]').forEach(b => b.remove());
    const revised = !first && next.revision !== run.revision;
    run = next;
    if (revised) loadDefinition().then(draw); // a reset onto the current revision: draw that revision's DAG
    else draw();
    if (!first) scheduleHistory();
  }

  function draw() {
    clear(header, 'Run ', mono(run.runId, { 'data-run-id': '' }), badge(run.status), h('span', { class: 'sub', 'data-version': run.version }, `version ${run.version}`),
      h('span', { class: 'grow' }), liveMark);
    header.querySelector('.badge').setAttribute('data-run-status', run.status);
    clear(summary, h('dl', { class: 'kv' },
      h('dt', {}, 'Workflow'), h('dd', {}, h('a', { href: `/console/workflows/${enc(run.workflow)}`, 'data-link': '' }, run.workflow), ` revision ${run.revision}`),
      run.parentRunId ? [h('dt', {}, 'Parent run'), h('dd', {}, h('a', { href: `/console/runs/${enc(run.parentRunId)}`, 'data-link': '', 'data-parent-run': run.parentRunId }, mono(run.parentRunId)))] : null,
      h('dt', {}, 'Tier'), h('dd', {}, run.tier),
      h('dt', {}, 'Idempotency key'), h('dd', {}, run.idempotencyKey ? mono(run.idempotencyKey) : '—'),
      run.correlationKey ? [h('dt', {}, 'Correlation key'), h('dd', {}, mono(run.correlationKey))] : null,
      run.tags ? [h('dt', {}, 'Tags'), h('dd', { 'data-run-tags': '' }, tagChips(run.tags, true))] : null,
      h('dt', {}, 'Started'), h('dd', {}, when(run.createdAt)),
      h('dt', {}, 'Updated'), h('dd', {}, when(run.updatedAt)),
      run.deadLetters ? [h('dt', {}, 'Parked'), h('dd', {}, h('span', { class: 'badge s-FAILED' }, `${run.deadLetters.items} dead letters`), ' ', run.deadLetters.lastError || '')] : null));
    drawActions();
    clear(dagBox, drawDag(definition.nodes, { states: run.nodes, selected, onSelect: id => { selected = id; draw(); } }));
    drawNode();
    clear(io, h('div', {}, h('h2', {}, 'Input'), json(run.input, { 'data-input': '' })),
      h('div', {}, h('h2', {}, 'Output'), json(run.output, { 'data-output': '' })));
  }

  function drawActions() {
    const live = !TERMINAL.includes(run.status);
    const parts = [];
    if (live && can('operate')) {
      parts.push(h('button', { class: 'danger', 'data-action': 'cancel', onclick: cancel }, 'Cancel run'));
    }
    const signalNodes = definition.nodes.filter(n => n.type === 'signal');
    if (live && can('start') && signalNodes.length) {
      const waiting = definition.nodes.filter(n => n.type === 'signal' && run.nodes[n.id] && ['WAITING', 'PENDING'].includes(run.nodes[n.id].state));
      const name = h('input', { type: 'text', size: 14, value: waiting[0]?.signal || '', placeholder: 'signal name', 'data-signal': 'name', list: 'signal-names' });
      const payload = h('input', { type: 'text', size: 36, placeholder: 'payload JSON (optional)', 'data-signal': 'payload' });
      const names = h('datalist', { id: 'signal-names' }, definition.nodes.filter(n => n.type === 'signal').map(n => h('option', { value: n.signal })));
      parts.push(h('span', { class: 'row' }, name, names, payload,
        h('button', { class: 'primary', 'data-action': 'signal', onclick: () => signal(name.value, payload.value) }, 'Send signal')));
    }
    if (!live && can('operate')) parts.push(resetControls());
    else if (!live) parts.push(h('span', { class: 'muted' }, `The run is ${run.status}: an operator can reset it to run again.`));
    else if (!can('operate') && !can('start')) parts.push(h('span', { class: 'muted' }, 'Your role can look, not act, on runs.'));
    clear(actions, parts.length ? h('div', { class: 'panel row' }, parts) : null);
  }

  // Reset (a FAILED or CANCELLED run; a SUCCEEDED one only with an explicit confirmation): the failed nodes, or
  // from a node (and everything downstream), optionally onto the workflow's current revision. Sent with If-Match of
  // the version this page shows.
  function resetControls() {
    if (!resetChoice.open) {
      return h('button', { class: 'primary', 'data-action': 'reset-open', onclick: () => { resetChoice.open = true; drawActions(); } },
        'Reset…');
    }
    const nodeIds = definition.nodes.map(n => n.id);
    if (!resetChoice.from || !nodeIds.includes(resetChoice.from)) {
      resetChoice.from = nodeIds.find(id => run.nodes[id] && run.nodes[id].state === 'FAILED') || nodeIds[0] || null;
    }
    const radio = (mode, label) => h('label', {}, h('input', { type: 'radio', name: 'reset-mode', value: mode, 'data-reset': 'mode-' + mode,
      checked: resetChoice.mode === mode, onchange: () => { resetChoice.mode = mode; } }), ' ', label);
    const picker = h('select', { 'data-reset': 'from', onchange: e => { resetChoice.from = e.target.value; resetChoice.mode = 'from'; drawActions(); } },
      nodeIds.map(id => h('option', { value: id, selected: id === resetChoice.from }, `${id} (${run.nodes[id] ? run.nodes[id].state : '—'})`)));
    picker.value = resetChoice.from || '';
    const succeeded = run.status === 'SUCCEEDED';
    return h('div', { class: 'reset', 'data-reset-form': '' },
      h('div', { class: 'row' }, h('b', {}, 'Reset this run'), radio('failed', 'the failed nodes'), radio('from', 'from node'), picker,
        h('span', { class: 'muted small' }, 'and everything downstream')),
      h('div', { class: 'row' },
        h('label', {}, h('input', { type: 'checkbox', 'data-reset': 'current', checked: resetChoice.current, onchange: e => { resetChoice.current = e.target.checked; } }),
          ` use the workflow's current revision (the run is on revision ${run.revision})`)),
      succeeded ? h('div', { class: 'row' },
        h('label', {}, h('input', { type: 'checkbox', 'data-reset': 'reopen', checked: resetChoice.reopen, onchange: e => { resetChoice.reopen = e.target.checked; drawActions(); } }),
          ' Yes, this run SUCCEEDED: reopen it and run those nodes again')) : null,
      h('div', { class: 'row' },
        h('button', { class: 'primary', 'data-action': 'reset', disabled: succeeded && !resetChoice.reopen, onclick: () => reset() }, 'Reset run'),
        h('button', { 'data-action': 'reset-close', onclick: () => { resetChoice.open = false; drawActions(); } }, 'Close'),
        h('span', { class: 'muted small' }, `sent with If-Match: "${run.version}"`)));
  }

  function resetBody() {
    const body = resetChoice.mode === 'from' ? { fromNodes: [resetChoice.from] } : { failedOnly: true };
    if (resetChoice.current) body.toRevision = 'current';
    if (run.status === 'SUCCEEDED' && resetChoice.reopen) body.reopenSucceeded = true;
    return body;
  }

  // A 409 keeps the user's choice (resetChoice and the panel's "yours"), shows what changed, and offers it again.
  async function reset(version = run.version, body = resetBody()) {
    try {
      const { data } = await request('POST', `/runs/${enc(runId)}/reset`, { body, ifMatch: version });
      resetChoice.open = false;
      flash(message, notice('ok', 'Run reset', `It is ${data.status} again at version ${data.version}; this page follows it live.`));
      apply(data);
      startFollowing();
    } catch (e) {
      if (e instanceof ApiError && e.status === 409) {
        clear(message, conflictPanel(e, {
          mine: body, what: 'reset',
          onReapply: v => reset(v, body),
          onTakeCurrent: current => { clear(message); if (current) apply(current); },
        }));
        if (e.problem.current) apply(e.problem.current);
      } else {
        clear(message, problem(e));
      }
    }
  }

  function drawNode() {
    const id = selected || Object.keys(run.nodes).find(k => run.nodes[k].state === 'FAILED') || null;
    if (!id || !run.nodes[id]) {
      clear(nodeBox, h('span', { class: 'muted' }, 'Select a node in the DAG to see its attempts, output and error.'));
      return;
    }
    const n = run.nodes[id];
    const def = definition.nodes.find(d => d.id === id) || {};
    const live = !TERMINAL.includes(run.status);
    const ops = [];
    if (live && can('operate')) {
      if (def.type === 'task' && n.state === 'RUNNING') ops.push(h('button', { 'data-action': 'retry-node', onclick: () => patchNode(id, 'retry') }, 'Retry now'));
      if (['PENDING', 'RUNNING', 'WAITING'].includes(n.state)) ops.push(h('button', { 'data-action': 'skip-node', onclick: () => patchNode(id, 'skip') }, 'Skip'));
    }
    if (!live && can('operate')) {
      ops.push(h('button', { 'data-action': 'reset-from-node', onclick: () => {
        Object.assign(resetChoice, { open: true, mode: 'from', from: id });
        drawActions();
      } }, 'Reset from here…'));
    }
    clear(nodeBox, h('div', { class: 'row' }, h('b', {}, mono(id)), badge(n.state), h('span', { class: 'muted' }, `${def.type || ''} ${def.handler || def.signal || def.duration || def.workflow || ''}`),
      h('span', { class: 'muted' }, `attempts ${n.attempts}`), h('span', { class: 'grow' }), ops,
      ops.length ? h('span', { class: 'muted small' }, `sent with If-Match: "${run.version}"`) : null),
      nodeLanguage(id, n, def),
      n.error ? h('div', { class: 'notice error', style: 'margin-top:8px' }, h('b', {}, 'Error'), mono(n.error)) : null,
      nodeInput(n, def),
      n.output !== undefined ? [h('h2', {}, 'Output'), json(n.output)] : null,
      nodeItems(n, def));
  }

  // The workflow language in the panel: the node's condition, why it was skipped, and the child runs it started.
  function nodeLanguage(id, n, def) {
    const rows = [];
    if (def.when) rows.push(h('dt', {}, 'When'), h('dd', {}, mono(def.when)));
    if (def.runIf && def.runIf !== 'allSucceeded') rows.push(h('dt', {}, 'Runs if'), h('dd', {}, mono(def.runIf)));
    if (def.forEach) rows.push(h('dt', {}, 'For each'), h('dd', {}, mono(def.forEach), def.maxConcurrency ? ` (at most ${def.maxConcurrency} at a time)` : ''));
    if (def.allowFailure) rows.push(h('dt', {}, 'Failure'), h('dd', {}, 'allowed: the run goes on'));
    if (n.state === 'SKIPPED') {
      rows.push(h('dt', {}, 'Skipped'), h('dd', { 'data-skipped-by': n.skippedBy || 'condition' }, n.skippedBy === 'operator'
        ? 'by an operator: its dependants went ahead'
        : 'its condition did not hold (a branch not taken, or its trigger could no longer hold)'));
    }
    const children = (run.children || []).filter(c => c.node === id).sort((a, b) => b.attempt - a.attempt);
    if (def.type === 'workflow' || children.length) {
      rows.push(h('dt', {}, 'Child run'), h('dd', {}, children.length ? children.map((c, i) => h('div', {},
        h('a', { href: `/console/runs/${enc(c.runId)}`, 'data-link': '', 'data-child-run': c.runId, 'data-latest': i === 0 ? '' : null }, mono(c.runId)),
        ' ', badge(c.status), h('span', { class: 'muted' }, ` ${c.workflow}, attempt ${c.attempt}`)))
        : h('span', { class: 'muted' }, 'not started yet')));
    }
    return rows.length ? h('dl', { class: 'kv', style: 'margin-top:8px' }, rows) : null;
  }

  // What the node was given: the evaluated input, else the definition's static one (a task without one gets the run's).
  function nodeInput(n, def) {
    if (n.input !== undefined && def.forEach) return [h('h2', {}, 'Input ', h('span', { class: 'caption' }, `forEach ${def.forEach}: one item each`)), json(n.input, { 'data-node-input': 'items' })];
    if (n.input !== undefined) return [h('h2', {}, 'Input'), json(n.input, { 'data-node-input': 'evaluated' })];
    if (def.input !== undefined) return [h('h2', {}, 'Input ', h('span', { class: 'caption' }, 'as defined')), json(def.input, { 'data-node-input': 'defined' })];
    if (def.type === 'task' || def.type === 'workflow') return [h('h2', {}, 'Input ', h('span', { class: 'caption' }, 'the run\'s input')), json(run.input, { 'data-node-input': 'run' })];
    return null;
  }

  // A fan-out's items, each with its own state and attempts; the first 500 (a node holds at most 1,000 by default).
  function nodeItems(n, def) {
    if (!Array.isArray(n.items)) return def.forEach ? h('p', { class: 'muted' }, 'The items are known once the node starts.') : null;
    const counts = {};
    n.items.forEach(i => { counts[i.state] = (counts[i.state] || 0) + 1; });
    const shown = n.items.slice(0, 500);
    return [h('h2', {}, `Items `, h('span', { class: 'caption', 'data-items-progress': '' }, `${counts.SUCCEEDED || 0}/${n.items.length} succeeded`,
        Object.entries(counts).filter(([k]) => k !== 'SUCCEEDED').map(([k, v]) => ` · ${v} ${k.toLowerCase()}`))),
      h('div', { class: 'fanout-items' }, h('table', { 'data-items': '' },
        h('thead', {}, h('tr', {}, h('th', {}, '#'), h('th', {}, 'State'), h('th', {}, 'Attempts'), h('th', {}, 'Error'), h('th', {}, 'Output'))),
        h('tbody', {}, shown.map((item, i) => h('tr', { 'data-item': i },
          h('td', { class: 'mono' }, `${def.id || ''}[${i}]`), h('td', {}, badge(item.state)), h('td', {}, item.attempts),
          h('td', {}, item.error ? mono(item.error) : ''),
          h('td', { class: 'mono small' }, item.output === undefined ? '' : JSON.stringify(item.output).slice(0, 120))))))),
      n.items.length > shown.length ? h('p', { class: 'muted' }, `and ${n.items.length - shown.length} more (the run's JSON has them all)`) : null];
  }

  function drawTimeline() {
    if (!history.length) { clear(timeline, h('span', { class: 'muted' }, 'No history yet.')); return; }
    const t0 = new Date(history[0].at).getTime();
    const end = TERMINAL.includes(run.status) ? new Date(history[history.length - 1].at).getTime() : Date.now();
    const span = Math.max(end - t0, 1);
    const lanes = new Map();
    for (const t of history) {
      if (!t.node) continue;
      const lane = lanes.get(t.node) || [];
      const at = new Date(t.at).getTime();
      if (t.to === 'RUNNING' || t.to === 'WAITING') {
        const open = lane[lane.length - 1];
        if (open && open.end === null && t.from === 'RUNNING') open.end = at; // a retry closes the old attempt
        lane.push({ start: at, end: null, state: t.to, cause: t.cause });
      } else if (['SUCCEEDED', 'FAILED', 'SKIPPED', 'CANCELLED'].includes(t.to)) {
        const open = lane[lane.length - 1];
        if (open && open.end === null) { open.end = at; open.state = t.to; open.cause = t.cause; }
        else lane.push({ start: at, end: at, state: t.to, cause: t.cause });
      }
      lanes.set(t.node, lane);
    }
    clear(timeline, [...lanes.entries()].map(([node, bars]) => h('div', { class: 'lane' },
      h('span', { class: 'name', title: node }, node),
      h('div', { class: 'track' }, bars.map((b, i) => {
        const left = ((b.start - t0) / span) * 100;
        const width = (((b.end ?? end) - b.start) / span) * 100;
        return h('div', { class: `bar s-${b.state}`, style: `left:${left}%;width:${Math.max(width, 0.4)}%`,
          title: `attempt ${i + 1}: ${b.state} (${b.cause}), ${((b.end ?? end) - b.start)} ms` });
      })))),
      h('div', { class: 'muted small' }, `${new Date(t0).toLocaleTimeString()} → ${new Date(end).toLocaleTimeString()} (${span} ms)`));
  }

  function drawHistory() {
    clear(historyBox, h('table', {},
      h('thead', {}, h('tr', {}, h('th', {}, 'Seq'), h('th', {}, 'At'), h('th', {}, 'Node'), h('th', {}, 'From'), h('th', {}, 'To'), h('th', {}, 'Cause'))),
      h('tbody', {}, history.map(t => h('tr', {},
        h('td', { class: 'mono' }, t.seq), h('td', { title: t.at, class: 'mono small' }, whenMs(t.at)), h('td', {}, t.node ? mono(t.node) : h('span', { class: 'muted' }, 'run')),
        h('td', {}, t.from ? badge(t.from) : ''), h('td', {}, badge(t.to)), h('td', {}, t.cause))))),
      historyMore ? h('div', { class: 'row pager' }, h('span', { class: 'muted' }, `${history.length} transitions shown`),
        h('button', { 'data-action': 'history-more', onclick: () => loadHistory() }, 'Load more')) : null);
  }

  async function cancel() {
    if (!confirm('Cancel this run?')) return;
    try {
      await request('POST', `/runs/${enc(runId)}/cancel`);
      const banner = notice('info', 'Cancellation requested', 'The run ends as CANCELLED on its next tick; this page updates when it does.');
      banner.dataset.whileLive = '';
      flash(message, banner, { ms: 0 });
    } catch (e) {
      clear(message, problem(e));
    }
  }

  async function signal(name, payloadText) {
    const body = { name: name.trim(), idempotencyKey: freshKey('console') };
    if (payloadText.trim()) {
      try { body.payload = JSON.parse(payloadText); } catch (e) { clear(message, notice('error', 'Payload is not JSON', e.message)); return; }
    }
    try {
      await request('POST', `/runs/${enc(runId)}/signals`, { body });
      const banner = notice('ok', `Signal '${body.name}' accepted`, 'The run takes it on its next tick.');
      if (!TERMINAL.includes(run.status)) banner.dataset.whileLive = ''; // else it finished already: just the 15 s
      banner.dataset.signalAccepted = body.name;
      flash(message, banner, { ms: 15000 });
    } catch (e) {
      clear(message, problem(e));
    }
  }

  // An edit carries the version this page shows; a 409 keeps the action and offers it again on the current version.
  async function patchNode(node, action, version = run.version) {
    const body = { nodes: { [node]: { action } } };
    try {
      const { data } = await request('PATCH', `/runs/${enc(runId)}`, { body, ifMatch: version });
      flash(message, notice('ok', `${action} of ${node} saved`, `The run is at version ${data.version}.`));
      apply(data);
    } catch (e) {
      if (e instanceof ApiError && e.status === 409) {
        clear(message, conflictPanel(e, {
          mine: body, what: `${action} of ${node}`,
          onReapply: v => patchNode(node, action, v),
          onTakeCurrent: current => { clear(message); if (current) apply(current); },
        }));
        if (e.problem.current) apply(e.problem.current);
      } else {
        clear(message, problem(e));
      }
    }
  }

  let stream = null;
  (async () => {
    try {
      const { data } = await request('GET', `/runs/${enc(runId)}`);
      run = data;
      await loadDefinition();
      draw();
      loadHistory();
    } catch (e) {
      clear(main, h('h1', {}, 'Run ', mono(runId)), problem(e), h('a', { href: '/console/runs', 'data-link': '' }, '← All runs'));
      return;
    }
    startFollowing();
  })();

  // Live: the server pushes the run after every commit (any pod's); no polling. Started again after a reset, since
  // the stream ends by itself once the run is terminal.
  function startFollowing() {
    if (stream) stream.close();
    stream = follow(runId, {
      // The stream sends the run at once on connect, usually at the version just read: redrawing it anyway would
      // replace the form fields under the reader's cursor (and a test's), for nothing.
      onRun: next => { if (!run || next.version > run.version) apply(next); },
      onState: s => {
        liveMark.className = 'live' + (s.live ? ' on' : '');
        liveMark.lastChild.textContent = s.live ? 'live' : s.ended ? 'finished' : s.status ? `not live (${s.status})` : 'reconnecting';
        if (s.ended) scheduleHistory();
      },
    });
  }
  return () => { if (stream) stream.close(); clearTimeout(historyTimer); };
}
