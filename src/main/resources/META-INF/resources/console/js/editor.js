// A JSON editor for a version-checked resource (workflow definitions, rules): Save sends the typed text with
// If-Match of the version it was loaded at. A 409 keeps the typed text in the editor and shows the current version
// beside it; "apply again" sends the same text on the current version. A 400/422 lists the violations.
import { h, clear, problem, notice, flash } from './ui.js';
import { request, ApiError } from './api.js';
import { conflictPanel } from './conflict.js';

/**
 * {@code path}: the API path to PUT. {@code text}: the initial document. {@code version}: the version it came from.
 * {@code onSaved(data, version)}: after a save. {@code onViolations(list)} / {@code onDraft(text)}: optional hooks.
 */
export function jsonEditor({ path, text, version, onSaved, onViolations, onDraft, onConflict, what = 'change' }) {
  let base = version;
  const area = h('textarea', { class: 'code', spellcheck: 'false', 'data-editor': '' });
  area.value = text;
  const baseMark = h('span', { class: 'muted small', 'data-editor-base': '' });
  const message = h('div', { 'data-editor-message': '' });
  const markBase = () => { baseMark.textContent = base === null ? 'new: saved without If-Match' : `editing version ${base}: saved with If-Match: "${base}"`; };
  markBase();
  let draftTimer = null;
  area.addEventListener('input', () => {
    clearTimeout(draftTimer);
    if (onDraft) draftTimer = setTimeout(() => onDraft(area.value), 250);
  });

  async function save(ifMatch) {
    const typed = area.value;
    try {
      JSON.parse(typed);
    } catch (e) {
      clear(message, notice('error', 'Not valid JSON: nothing was sent', e.message));
      return;
    }
    try {
      const res = await request('PUT', path, { body: typed, ifMatch });
      base = res.version;
      markBase();
      flash(message, notice('ok', `Saved: version ${res.version}`, res.data && res.data.revision ? `revision ${res.data.revision}` : ''));
      if (onViolations) onViolations([]);
      if (onSaved) onSaved(res.data, res.version);
    } catch (e) {
      if (e instanceof ApiError && e.status === 409) {
        if (onConflict) onConflict(e.problem.current);
        clear(message, conflictPanel(e, {
          mine: typed, what,
          onReapply: v => save(v),
          onTakeCurrent: (current, v) => {
            const { version: _v, createdAt, updatedAt, updatedBy, revision, ...doc } = current || {};
            area.value = JSON.stringify(doc, null, 2);
            base = v;
            markBase();
            clear(message);
          },
        }));
      } else {
        clear(message, problem(e));
        if (onViolations && e instanceof ApiError) onViolations(e.problem.violations || []);
      }
    }
  }

  const element = h('div', { class: 'panel' },
    h('div', { class: 'row', style: 'margin-bottom:6px' }, h('b', {}, 'Edit'), baseMark, h('span', { class: 'grow' }),
      h('button', { class: 'primary', 'data-action': 'save', onclick: () => save(base) }, 'Save')),
    message, area);
  return { element, area, setBase(v) { base = v; markBase(); } };
}
