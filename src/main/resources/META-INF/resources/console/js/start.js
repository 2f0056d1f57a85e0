// "Start a run" of one workflow: the input as a JSON document, an optional idempotency key, and the answer: a link to
// the run (201 started, or 200: that key already started this run) or the problem, with the typed input kept.
import { h, clear, notice, problem, runId } from './ui.js';
import { request, enc } from './api.js';
import { can, roles } from './auth.js';

export function startRunForm(workflow) {
  if (!can('start')) {
    return h('div', { class: 'panel muted small', 'data-start-form': 'read-only' },
      `Starting a run needs the client role; your token has ${roles().join(', ') || 'no role'}.`);
  }
  const input = h('textarea', { class: 'code short', spellcheck: 'false', 'data-start': 'input', placeholder: '{"orderId": "A-1"}' });
  input.value = '{}';
  const key = h('input', { type: 'text', size: 30, placeholder: 'idempotency key (optional)', 'data-start': 'key' });
  const out = h('div', { 'data-start-result': '' });
  const go = async () => {
    let body = {};
    const text = input.value.trim();
    if (text) {
      try { body.input = JSON.parse(text); } catch (e) {
        clear(out, notice('error', 'The input is not valid JSON: nothing was sent', e.message));
        return;
      }
    }
    if (key.value.trim()) body.idempotencyKey = key.value.trim();
    try {
      const { status, data } = await request('POST', `/workflows/${enc(workflow)}/runs`, { body });
      const href = '/console/runs/' + data.runId;
      clear(out, h('div', { class: 'notice ok', 'data-started': data.runId, 'data-start-status': status },
        h('b', {}, status === 201 ? `Run started (${status})` : `Run already started with this key (${status}): nothing new was started`),
        h('a', { href, 'data-link': '', 'data-started-link': '' }, 'Open run '), runId(data.runId), ` ${data.status}`));
    } catch (e) {
      clear(out, problem(e));
    }
  };
  return h('div', { class: 'panel', 'data-start-form': '' },
    h('div', { class: 'row', style: 'margin-bottom:6px' }, h('b', {}, 'Start a run'), h('span', { class: 'muted small' }, 'input (JSON)')),
    input,
    h('div', { class: 'row', style: 'margin-top:6px' }, key, h('button', { class: 'primary', 'data-action': 'start-run', onclick: go }, 'Start')),
    out);
}
