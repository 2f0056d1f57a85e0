// Delete of a version-checked resource (a pool, a rule): asked once, sent with If-Match of the version the page shows.
// A 409 says nothing was deleted and shows the current version beside the delete that was refused; "apply again"
// deletes the current version, once the reader has seen what changed.
import { h, clear, problem } from './ui.js';
import { request, ApiError } from './api.js';
import { conflictPanel } from './conflict.js';

/**
 * {@code path}: the API path to DELETE. {@code version()}: the version shown now. {@code message}: where answers go.
 * {@code onDeleted(data)}: after the delete. {@code onCurrent(current)}: the resource as a 409 says it is now.
 */
export function deleteButton({ path, what, version, message, onDeleted, onCurrent }) {
  async function remove(ifMatch) {
    try {
      const { data } = await request('DELETE', path, { ifMatch });
      onDeleted(data);
    } catch (e) {
      if (e instanceof ApiError && e.status === 409) {
        if (e.problem.current && onCurrent) onCurrent(e.problem.current);
        clear(message, conflictPanel(e, { mine: { deleting: what }, what: `delete of ${what}`,
          onReapply: v => remove(v),
          onTakeCurrent: current => { clear(message); if (current && onCurrent) onCurrent(current); } }));
      } else {
        clear(message, problem(e));
      }
    }
  }
  return h('button', { class: 'danger', 'data-action': 'delete', onclick: () => {
    if (confirm(`Delete ${what} (version ${version()})?`)) remove(version());
  } }, 'Delete…');
}
