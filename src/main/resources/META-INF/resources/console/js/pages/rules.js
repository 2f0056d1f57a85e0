// Rules: the list (admin: create one); one rule as JSON (admin: edit and delete with If-Match, 409 kept beside the
// current version).
import { h, clear, mono, when, json, problem } from '../ui.js';
import { get, enc } from '../api.js';
import { can } from '../auth.js';
import { jsonEditor } from '../editor.js';
import { deleteButton } from '../remove.js';

export function renderList(main, _params, { navigate }) {
  const box = h('div');
  main.append(h('h1', {}, 'Rules'), box);
  get('/rules').then(({ items }) => {
    clear(box, items.length === 0 ? h('div', { class: 'panel muted' }, 'No rules yet. A rule starts or signals runs when an event arrives (POST /api/v1/events).') : h('table', { 'data-rules': '' },
      h('thead', {}, h('tr', {}, h('th', {}, 'Name'), h('th', {}, 'On event'), h('th', {}, 'Does'), h('th', {}, 'Enabled'), h('th', {}, 'Version'), h('th', {}, 'Updated'))),
      h('tbody', {}, items.map(r => h('tr', { class: 'clickable', onclick: () => navigate('/console/rules/' + enc(r.name)) },
        h('td', {}, h('a', { href: '/console/rules/' + enc(r.name), 'data-link': '' }, r.name)), h('td', {}, mono(r.on)),
        h('td', {}, r.start ? `start ${r.start.workflow}` : r.signal ? `signal ${r.signal.name}` : ''),
        h('td', {}, r.enabled ? 'yes' : h('span', { class: 'badge s-SKIPPED' }, 'disabled')),
        h('td', { class: 'mono' }, r.version), h('td', {}, when(r.updatedAt)))))));
  }).catch(e => clear(box, problem(e)));
  if (can('edit')) {
    // A create is the editor's save without If-Match: a 409 (someone created it meanwhile) keeps the typed rule.
    const name = h('input', { type: 'text', placeholder: 'new rule name', 'data-new-rule': '' });
    const holder = h('div');
    main.append(h('h2', {}, 'New rule'), h('div', { class: 'row' }, name,
      h('button', { 'data-action': 'draft-rule', onclick: () => {
        const n = name.value.trim();
        if (!n) return;
        const ed = jsonEditor({ path: '/rules/' + enc(n), version: null, what: 'rule',
          text: JSON.stringify({ on: 'order.paid', match: {}, start: { workflow: 'order', input: { orderId: '$.orderId' } } }, null, 2),
          onSaved: () => navigate('/console/rules/' + enc(n)) });
        clear(holder, ed.element);
      } }, 'Draft')), holder);
  }
}

export function renderOne(main, [name], { navigate }) {
  const title = h('h1', {}, 'Rule ', mono(name));
  const message = h('div', { 'data-message': '' });
  const box = h('div');
  main.append(title, message, box);
  get(`/rules/${enc(name)}`).then(rule => {
    clear(title, 'Rule ', mono(name), h('span', { class: 'sub' }, `version ${rule.version}`));
    const { version, createdAt, updatedAt, updatedBy, ...doc } = rule;
    if (!can('edit')) {
      clear(box, h('div', { class: 'muted small' }, 'Editing needs the admin role.'), json(doc));
      return;
    }
    let current = version;
    const retitle = v => clear(title, 'Rule ', mono(name), h('span', { class: 'sub' }, `version ${v}`));
    const editor = jsonEditor({ path: `/rules/${enc(name)}`, text: JSON.stringify(doc, null, 2), version, what: 'rule',
      onSaved: (data, v) => { current = v; retitle(v); },
      onConflict: now => { if (now) { current = now.version; retitle(now.version); } } });
    clear(box, h('div', { class: 'row', style: 'margin-bottom:8px' }, h('span', { class: 'grow' }),
      deleteButton({ path: `/rules/${enc(name)}`, what: `rule ${name}`, version: () => current, message,
        onDeleted: () => navigate('/console/rules'),
        onCurrent: now => { current = now.version; retitle(now.version); } })), editor.element);
  }).catch(e => clear(box, problem(e)));
}
