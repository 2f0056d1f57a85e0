// Sign-in: paste a bearer token, or (dev and embedded mode only) pick one of the dev roles of tenant demo.
import { h, clear, notice, problem } from '../ui.js';
import { signIn } from '../auth.js';
import { request, ApiError } from '../api.js';

export function render(main, _params, { navigate }) {
  const next = new URLSearchParams(location.search).get('next') || '/console/runs';
  const target = next.startsWith('/console') && !next.startsWith('/console/signin') ? next : '/console/runs';
  const message = h('div');
  const area = h('textarea', { class: 'code', style: 'min-height:110px', placeholder: 'eyJhbGciOi…', 'data-token-input': '' });
  const done = jwt => {
    try {
      signIn(jwt);
    } catch (e) {
      clear(message, notice('error', 'Not a token', e.message));
      return;
    }
    navigate(target, { replace: true });
  };
  const devRoles = h('div', { class: 'row roles', 'data-dev-roles': '' }, h('span', { class: 'muted' }, 'Looking for dev tokens…'));
  main.append(h('div', { class: 'signin' },
    h('h1', {}, h('img', { src: '/console/img/favicon.svg', alt: '', width: 24 }), 'Ductor console'),
    message,
    h('div', { class: 'panel' },
      h('h2', { style: 'margin-top:0' }, 'Sign in with a bearer token'),
      h('p', { class: 'muted' }, 'Your token stays in this browser tab (sessionStorage) and is sent as Authorization: Bearer to /api/v1. Its groups claim decides what you may do; its tenant claim, which runs you see.'),
      area,
      h('div', { class: 'row', style: 'margin-top:8px' },
        h('button', { class: 'primary', 'data-action': 'sign-in', onclick: () => done(area.value) }, 'Sign in'))),
    h('div', { class: 'panel' },
      h('h2', { style: 'margin-top:0' }, 'Dev mode: pick a role'),
      devRoles)));
  request('GET', '/dev-tokens').then(({ data }) => {
    clear(devRoles, Object.entries(data.tokens).map(([role, jwt]) =>
      h('button', { 'data-dev-role': role, onclick: () => done(jwt) }, role)),
      h('span', { class: 'muted' }, `tenant ${data.tenant}`));
  }).catch(e => {
    clear(devRoles, e instanceof ApiError && e.status === 404
      ? h('span', { class: 'muted' }, 'Not offered here: dev tokens are handed out in dev and embedded mode only, and only to a browser on the server’s own machine.')
      : problem(e));
  });
}
