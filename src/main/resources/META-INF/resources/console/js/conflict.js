// The shared 409 panel: what the server has now (current) beside what you sent (rejected), said plainly that
// nothing was saved; your input stays where it was, and one click applies it again on the current version.
import { h, json } from './ui.js';

/**
 * {@code error}: the ApiError of a 409. {@code mine}: what the user sent, as typed (text) or as a value.
 * {@code onReapply(version, current)}: send it again with If-Match of the current version.
 * {@code onTakeCurrent(current, version)}: optional, drop the user's change and load the current state.
 */
export function conflictPanel(error, { mine, onReapply, onTakeCurrent, what = 'change' }) {
  const p = error.problem || {};
  const current = p.current;
  const version = p.currentVersion ?? (current && current.version);
  const rejected = p.rejected !== undefined ? p.rejected : mine;
  const reapply = h('button', { class: 'primary', 'data-action': 'reapply' }, `Apply my ${what} again on version ${version}`);
  reapply.addEventListener('click', () => onReapply(version, current));
  const panel = h('div', { class: 'conflict', role: 'alert', 'data-conflict': '' },
    h('h3', {}, `Conflict (409): your ${what} was NOT saved`),
    h('div', {}, p.detail || 'Someone else changed this since you loaded it.'),
    h('div', { class: 'muted small' }, `You edited version ${p.expectedVersion ?? '?'}; it is now at version ${version}. `
      + 'Your input is kept below and in the editor. Compare, then apply it again on the current version, or take the current one.'),
    h('div', { class: 'cols', style: 'margin-top:8px' },
      h('div', {}, h('h2', {}, `Current (version ${version})`), json(current, { 'data-current': '' })),
      h('div', {}, h('h2', {}, 'Yours (rejected)'), typeof rejected === 'string' ? h('pre', { class: 'json', 'data-rejected': '' }, rejected) : json(rejected, { 'data-rejected': '' }))),
    h('div', { class: 'row', style: 'margin-top:8px' }, reapply,
      onTakeCurrent ? h('button', { 'data-action': 'take-current', onclick: () => onTakeCurrent(current, version) }, 'Discard mine, load the current version') : null));
  return panel;
}
