// Pools: the list (admin: create one); one pool with its capacity and pause (admin: edit and delete with If-Match, a
// 409 keeps the typed values beside the current pool), and its event history.
import { h, clear, mono, when, json, problem, notice, flash } from '../ui.js';
import { request, get, enc, ApiError } from '../api.js';
import { can } from '../auth.js';
import { conflictPanel } from '../conflict.js';
import { deleteButton } from '../remove.js';

export function renderList(main, _params, { navigate }) {
  const box = h('div');
  main.append(h('h1', {}, 'Pools'), box);
  get('/pools').then(({ items }) => {
    clear(box, items.length === 0 ? h('div', { class: 'panel muted' }, 'No pools yet. A task node names a pool to share its capacity fleet-wide.') : h('table', { 'data-pools': '' },
      h('thead', {}, h('tr', {}, h('th', {}, 'Name'), h('th', {}, 'Capacity'), h('th', {}, 'Paused'), h('th', {}, 'Version'), h('th', {}, 'Updated'))),
      h('tbody', {}, items.map(p => h('tr', { class: 'clickable', onclick: () => navigate('/console/pools/' + enc(p.name)) },
        h('td', {}, h('a', { href: '/console/pools/' + enc(p.name), 'data-link': '' }, p.name)),
        h('td', {}, p.capacity), h('td', {}, p.paused ? h('span', { class: 'badge s-CANCELLED' }, 'paused') : 'no'),
        h('td', { class: 'mono' }, p.version), h('td', {}, when(p.updatedAt)))))));
  }).catch(e => clear(box, problem(e)));
  if (can('edit')) main.append(h('h2', {}, 'New pool'), createForm(navigate));
}

// A create is a PUT without If-Match: if someone created the pool meanwhile, the 409 shows theirs beside these values,
// which stay in the form; "apply again" saves them on the current version.
function createForm(navigate) {
  const name = h('input', { type: 'text', placeholder: 'pool name', 'data-new-pool': 'name' });
  const cap = h('input', { type: 'number', min: 0, value: 1, 'data-new-pool': 'capacity', style: 'width:90px' });
  const pause = h('input', { type: 'checkbox', 'data-new-pool': 'paused' });
  const message = h('div', { 'data-new-pool-message': '' });
  async function create(ifMatch) {
    const n = name.value.trim();
    if (!n) { clear(message, notice('error', 'A pool needs a name: nothing was sent')); return; }
    const body = { capacity: Number(cap.value), paused: pause.checked };
    try {
      await request('PUT', `/pools/${enc(n)}`, { body, ifMatch });
      navigate('/console/pools/' + enc(n));
    } catch (e) {
      if (e instanceof ApiError && e.status === 409) {
        clear(message, conflictPanel(e, { mine: body, what: 'new pool', onReapply: v => create(v),
          onTakeCurrent: () => navigate('/console/pools/' + enc(n)) }));
      } else {
        clear(message, problem(e));
      }
    }
  }
  return h('div', { class: 'panel' }, h('div', { class: 'row' }, name, h('label', {}, 'Capacity ', cap), h('label', {}, pause, ' paused'),
    h('button', { class: 'primary', 'data-action': 'create-pool', onclick: () => create(null) }, 'Create')), message);
}

export function renderOne(main, [name], { navigate }) {
  const title = h('h1', {}, 'Pool ', mono(name));
  const message = h('div');
  const form = h('div', { class: 'panel' });
  const events = h('div');
  main.append(title, message, form, h('h2', {}, 'Events'), events);
  let pool = null;

  async function load() {
    try {
      const res = await request('GET', `/pools/${enc(name)}`);
      pool = res.data;
    } catch (e) {
      clear(message, problem(e));
      return;
    }
    clear(title, 'Pool ', mono(name), h('span', { class: 'sub' }, `version ${pool.version}`));
    drawForm(pool.capacity, pool.paused);
    loadEvents();
  }

  function drawForm(capacity, paused) {
    if (!can('edit')) {
      clear(form, h('dl', { class: 'kv' }, h('dt', {}, 'Capacity'), h('dd', {}, pool.capacity), h('dt', {}, 'Paused'), h('dd', {}, String(pool.paused))),
        h('div', { class: 'muted small' }, 'Editing needs the admin role.'));
      return;
    }
    const cap = h('input', { type: 'number', min: 0, value: capacity, 'data-pool': 'capacity', style: 'width:90px' });
    const pause = h('input', { type: 'checkbox', checked: paused, 'data-pool': 'paused' });
    clear(form, h('div', { class: 'row' }, h('label', {}, 'Capacity ', cap), h('label', {}, pause, ' paused'),
      h('button', { class: 'primary', 'data-action': 'save', onclick: () => save(Number(cap.value), pause.checked, pool.version) }, 'Save'),
      h('span', { class: 'muted small' }, `saved with If-Match: "${pool.version}"`), h('span', { class: 'grow' }),
      deleteButton({ path: `/pools/${enc(name)}`, what: `pool ${name}`, version: () => pool.version, message,
        onDeleted: () => navigate('/console/pools'),
        onCurrent: current => { pool = current; clear(title, 'Pool ', mono(name), h('span', { class: 'sub' }, `version ${pool.version}`)); } })));
  }

  async function save(capacity, paused, version) {
    const body = { capacity, paused };
    try {
      const res = await request('PUT', `/pools/${enc(name)}`, { body, ifMatch: version });
      pool = res.data;
      flash(message, notice('ok', `Saved: version ${pool.version}`));
      clear(title, 'Pool ', mono(name), h('span', { class: 'sub' }, `version ${pool.version}`));
      drawForm(pool.capacity, pool.paused);
      loadEvents();
    } catch (e) {
      if (e instanceof ApiError && e.status === 409) {
        if (e.problem.current) pool = e.problem.current;
        drawForm(capacity, paused); // the typed values stay
        clear(message, conflictPanel(e, { mine: body, what: 'pool change',
          onReapply: v => save(capacity, paused, v),
          onTakeCurrent: current => { pool = current; drawForm(current.capacity, current.paused); clear(message); } }));
      } else {
        clear(message, problem(e));
      }
    }
  }

  async function loadEvents() {
    try {
      const list = await get(`/pools/${enc(name)}/events`);
      clear(events, h('table', { 'data-pool-events': '' },
        h('thead', {}, h('tr', {}, h('th', {}, 'Version'), h('th', {}, 'Type'), h('th', {}, 'Payload'), h('th', {}, 'By'), h('th', {}, 'At'))),
        h('tbody', {}, list.slice().reverse().map(ev => h('tr', {}, h('td', { class: 'mono' }, ev.version), h('td', {}, ev.type),
          h('td', {}, json(ev.payload)), h('td', {}, ev.recordedBy), h('td', {}, when(ev.recordedAt)))))));
    } catch (e) {
      clear(events, problem(e));
    }
  }
  load();
}
