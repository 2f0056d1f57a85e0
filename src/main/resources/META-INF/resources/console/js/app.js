// The console's shell: a left nav, a router on the History API (the server answers every /console/** page path
// with this index.html, so deep links and reloads work), and sign-in gating.
import { token, roles, tenant, signOut, expired } from './auth.js';
import { h, clear } from './ui.js';
import * as signin from './pages/signin.js';
import * as runs from './pages/runs.js';
import * as run from './pages/run.js';
import * as workflows from './pages/workflows.js';
import * as pools from './pages/pools.js';
import * as rules from './pages/rules.js';
import * as schedules from './pages/schedules.js';
import * as fleet from './pages/fleet.js';

const ROUTES = [
  [/^\/console\/signin\/?$/, signin.render, null],
  [/^\/console\/?$/, runs.render, 'runs'],
  [/^\/console\/runs\/?$/, runs.render, 'runs'],
  [/^\/console\/runs\/([^/]+)\/?$/, run.render, 'runs'],
  [/^\/console\/workflows\/?$/, workflows.renderList, 'workflows'],
  [/^\/console\/workflows\/([^/]+)\/?$/, workflows.renderOne, 'workflows'],
  [/^\/console\/pools\/?$/, pools.renderList, 'pools'],
  [/^\/console\/pools\/([^/]+)\/?$/, pools.renderOne, 'pools'],
  [/^\/console\/rules\/?$/, rules.renderList, 'rules'],
  [/^\/console\/rules\/([^/]+)\/?$/, rules.renderOne, 'rules'],
  [/^\/console\/schedules\/?$/, schedules.renderList, 'schedules'],
  [/^\/console\/schedules\/([^/]+)\/?$/, schedules.renderOne, 'schedules'],
  [/^\/console\/fleet\/?$/, fleet.render, 'fleet'],
];

const NAV = [['runs', 'Runs', '/console/runs'], ['workflows', 'Workflows', '/console/workflows'],
  ['pools', 'Pools', '/console/pools'], ['rules', 'Rules', '/console/rules'],
  ['schedules', 'Schedules', '/console/schedules'], ['fleet', 'Fleet', '/console/fleet']];

const app = document.getElementById('app');
let cleanup = null;

export function navigate(path, { replace = false } = {}) {
  if (replace) history.replaceState({}, '', path);
  else history.pushState({}, '', path);
  route();
}

function route() {
  if (cleanup) { try { cleanup(); } catch (e) { /* a page's timers */ } cleanup = null; }
  const path = location.pathname;
  if (!path.startsWith('/console/signin') && (!token() || expired())) {
    const next = path + location.search;
    history.replaceState({}, '', '/console/signin?next=' + encodeURIComponent(next));
    return route();
  }
  for (const [re, render, section] of ROUTES) {
    const m = path.match(re);
    if (!m) continue;
    const params = m.slice(1).map(decodeURIComponent);
    if (!section) {
      app.className = 'app bare';
      const main = h('main');
      clear(app, main);
      cleanup = render(main, params, { navigate }) || null;
      return;
    }
    app.className = 'app';
    const main = h('main', { 'data-page': section });
    clear(app, shell(section), main);
    cleanup = render(main, params, { navigate }) || null;
    return;
  }
  app.className = 'app';
  clear(app, shell(null), h('main', {}, h('h1', {}, 'Not found'), h('p', {}, 'No console page at ', h('code', {}, path))));
}

function shell(active) {
  return h('nav', { class: 'side' },
    h('div', { class: 'brand' }, h('img', { src: '/console/img/favicon.svg', alt: '' }), 'Ductor'),
    NAV.map(([key, label, href]) => h('a', { href, 'data-link': '', class: key === active ? 'active' : '' }, label)),
    h('div', { class: 'who', 'data-who': '' },
      h('div', {}, 'tenant ', h('b', { 'data-tenant': '' }, tenant())),
      h('div', {}, roles().map(r => h('span', { class: 'role', 'data-role': r }, r))),
      h('button', { onclick: () => { signOut(); navigate('/console/signin'); } }, 'Sign out')));
}

document.addEventListener('click', e => {
  const a = e.target.closest('a[data-link]');
  if (!a || e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
  e.preventDefault();
  navigate(a.getAttribute('href'));
});
window.addEventListener('popstate', route);
route();
