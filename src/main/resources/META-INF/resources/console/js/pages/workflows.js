// Workflows: the list; one workflow's DAG, its revisions, its runs (a link to the filtered runs list), "start a run"
// (client), and (admin only) an editor that saves with If-Match.
import { h, clear, mono, when, problem } from '../ui.js';
import { get, enc } from '../api.js';
import { can } from '../auth.js';
import { drawDag } from '../dag.js';
import { jsonEditor } from '../editor.js';
import { startRunForm } from '../start.js';

export function renderList(main, _params, { navigate }) {
  const box = h('div');
  main.append(h('h1', {}, 'Workflows'), box);
  get('/workflows').then(({ items }) => {
    clear(box, items.length === 0 ? h('div', { class: 'panel muted' }, 'No workflows yet.') : h('table', { 'data-workflows': '' },
      h('thead', {}, h('tr', {}, h('th', {}, 'Name'), h('th', {}, 'Revision'), h('th', {}, 'Version'), h('th', {}, 'Nodes'), h('th', {}, 'Updated'))),
      h('tbody', {}, items.map(w => h('tr', { class: 'clickable', 'data-workflow': w.name, onclick: () => navigate('/console/workflows/' + enc(w.name)) },
        h('td', {}, h('a', { href: '/console/workflows/' + enc(w.name), 'data-link': '' }, w.name)),
        h('td', {}, w.revision), h('td', { class: 'mono' }, w.version), h('td', {}, (w.nodes || []).length), h('td', {}, when(w.updatedAt)))))));
  }).catch(e => clear(box, problem(e)));
  if (can('edit')) {
    const name = h('input', { type: 'text', placeholder: 'new workflow name', 'data-new-workflow': '' });
    const holder = h('div');
    main.append(h('h2', {}, 'New workflow'), h('div', { class: 'row' }, name,
      h('button', { onclick: () => {
        if (!name.value.trim()) return;
        const n = name.value.trim();
        const ed = jsonEditor({ path: '/workflows/' + enc(n), version: null, what: 'definition',
          text: JSON.stringify({ name: n, nodes: [{ id: 'first', type: 'task', handler: 'noop' }] }, null, 2),
          onSaved: () => navigate('/console/workflows/' + enc(n)) });
        clear(holder, ed.element);
      } }, 'Draft')), holder);
  }
}

export function renderOne(main, [name]) {
  const title = h('h1', {}, 'Workflow ', mono(name));
  const message = h('div');
  const dagBox = h('div', { 'data-dag': '' });
  const dagCaption = h('span', { class: 'caption', 'data-dag-caption': '' });
  const revBox = h('div', { 'data-revisions': '' });
  const editBox = h('div');
  const runsLink = h('a', { href: '/console/runs?workflow=' + enc(name), 'data-link': '', 'data-workflow-runs': '' }, 'Runs of this workflow →');
  main.append(title, h('div', { class: 'row', style: 'margin-bottom:10px' }, runsLink), message, startRunForm(name), h('h2', {}, 'DAG', dagCaption), dagBox, h('div', { class: 'cols' }, h('div', {}, h('h2', {}, 'Revisions'), revBox), h('div', {}, h('h2', {}, can('edit') ? 'Definition editor' : 'Definition'), editBox)));

  let workflow = null;
  let editor = null;
  let flagged = [];
  let draftNodes = null;

  let caption = '';
  const drawCurrent = () => {
    dagCaption.textContent = draftNodes ? caption || 'preview of your draft' : `current revision ${workflow.revision}`;
    clear(dagBox, drawDag(draftNodes || workflow.nodes, { flagged }));
  };

  async function loadRevisions(active) {
    try {
      const { items } = await get(`/workflows/${enc(name)}/revisions`);
      clear(revBox, h('table', {},
        h('thead', {}, h('tr', {}, h('th', {}, 'Revision'), h('th', {}, 'Accepted'), h('th', {}, 'Nodes'), h('th', {}, ''))),
        h('tbody', {}, items.map(r => h('tr', { 'data-revision': r.revision },
          h('td', {}, r.revision, r.revision === active ? h('span', { class: 'badge s-SUCCEEDED', style: 'margin-left:6px' }, 'current') : null),
          h('td', {}, when(r.createdAt)), h('td', {}, r.nodes.length),
          h('td', {}, h('button', { onclick: () => { draftNodes = r.nodes; caption = `revision ${r.revision}`; flagged = []; drawCurrent(); } }, 'Preview')))))));
    } catch (e) {
      clear(revBox, problem(e));
    }
  }

  async function load() {
    try {
      workflow = await get(`/workflows/${enc(name)}`);
    } catch (e) {
      clear(message, problem(e));
      return;
    }
    clear(title, 'Workflow ', mono(name), h('span', { class: 'sub' }, `revision ${workflow.revision} · version ${workflow.version}`));
    draftNodes = null;
    drawCurrent();
    loadRevisions(workflow.revision);
    const doc = JSON.stringify({ name: workflow.name, nodes: workflow.nodes }, null, 2);
    if (!can('edit')) {
      clear(editBox, h('div', { class: 'muted small', 'data-read-only': '' }, 'Editing needs the admin role.'), h('pre', { class: 'json' }, doc));
      return;
    }
    editor = jsonEditor({
      path: `/workflows/${enc(name)}`, text: doc, version: workflow.version, what: 'definition',
      onSaved: data => {
        workflow = data;
        clear(title, 'Workflow ', mono(name), h('span', { class: 'sub' }, `revision ${data.revision} · version ${data.version}`));
        draftNodes = null; flagged = []; drawCurrent();
        loadRevisions(data.revision);
      },
      onViolations: list => { flagged = list.map(v => v.node).filter(Boolean); drawCurrent(); },
      onDraft: text => { // preview what is typed, when it parses
        try { const d = JSON.parse(text); if (Array.isArray(d.nodes)) { draftNodes = d.nodes; caption = 'preview of your draft'; drawCurrent(); } } catch (e) { /* still typing */ }
      },
      onConflict: current => { // someone saved meanwhile: show their revision in the list; the editor keeps the typed text
        if (current) {
          workflow = current;
          clear(title, 'Workflow ', mono(name), h('span', { class: 'sub' }, `revision ${current.revision} · version ${current.version}`));
          loadRevisions(current.revision);
        }
      },
    });
    clear(editBox, editor.element);
  }
  load();
}
