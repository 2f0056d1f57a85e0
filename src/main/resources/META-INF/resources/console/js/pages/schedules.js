// Schedules: the list with each one's next fire time and a pause/resume button (admin; sent with If-Match of the
// version shown, a 409 kept beside the current one); one schedule with its next fire times, its last fire and a JSON
// editor; a new schedule from a name and a JSON document.
import { h, clear, mono, when, json, problem, notice } from '../ui.js';
import { request, get, enc, ApiError } from '../api.js';
import { can } from '../auth.js';
import { jsonEditor } from '../editor.js';
import { conflictPanel } from '../conflict.js';

const TEMPLATE = { cron: '0 */5 * * * ?', timezone: Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC',
  workflow: 'chain3', input: {}, overlap: 'skip', catchUp: 'none', paused: false };
const READ_ONLY = ['name', 'version', 'createdAt', 'updatedAt', 'updatedBy', 'nextFireTimes', 'lastFire'];

function definition(schedule) {
  const doc = { ...schedule };
  READ_ONLY.forEach(k => delete doc[k]);
  return doc;
}

/** PUTs the schedule with only paused changed, If-Match: the version shown; then {@code done(saved)}; a 409 goes to {@code message}. */
async function setPaused(schedule, paused, message, done) {
  const body = { ...definition(schedule), paused };
  try {
    const res = await request('PUT', `/schedules/${enc(schedule.name)}`, { body, ifMatch: schedule.version });
    clear(message, notice('ok', `${paused ? 'Paused' : 'Resumed'} ${schedule.name}: version ${res.version}`));
    done(res.data);
  } catch (e) {
    if (e instanceof ApiError && e.status === 409) {
      clear(message, conflictPanel(e, { mine: body, what: paused ? 'pause' : 'resume',
        onReapply: v => setPaused({ ...(e.problem.current || schedule), version: v }, paused, message, done),
        onTakeCurrent: current => { clear(message); done(current); } }));
    } else {
      clear(message, problem(e));
    }
  }
}

function pauseButton(schedule, message, done) {
  if (!can('edit')) return null;
  return h('button', { 'data-action': schedule.paused ? 'resume' : 'pause',
    onclick: e => { e.stopPropagation(); setPaused(schedule, !schedule.paused, message, done); } }, schedule.paused ? 'Resume' : 'Pause');
}

function nextFire(schedule) {
  const next = (schedule.nextFireTimes || [])[0];
  return next ? h('span', { title: `UTC ${next.utc}` }, next.local) : h('span', { class: 'muted' }, schedule.paused ? 'paused' : '-');
}

export function renderList(main, _params, { navigate }) {
  const message = h('div');
  const box = h('div');
  const create = can('edit') ? h('button', { class: 'primary', 'data-action': 'new-schedule', onclick: () => navigate('/console/schedules/new') }, 'New schedule') : null;
  main.append(h('div', { class: 'row' }, h('h1', {}, 'Schedules'), create), message, box);
  function load() {
    get('/schedules').then(({ items }) => {
      clear(box, items.length === 0 ? h('div', { class: 'panel muted' }, 'No schedules yet. A schedule starts a run of a workflow at each fire time of a cron expression (Quartz, seconds first).') : h('table', { 'data-schedules': '' },
        h('thead', {}, h('tr', {}, h('th', {}, 'Name'), h('th', {}, 'Cron'), h('th', {}, 'Time zone'), h('th', {}, 'Workflow'), h('th', {}, 'Next fire'),
          h('th', {}, 'Last fire'), h('th', {}, 'Version'), h('th', {}, ''))),
        h('tbody', {}, items.map(s => h('tr', { class: 'clickable', 'data-schedule': s.name, onclick: () => navigate('/console/schedules/' + enc(s.name)) },
          h('td', {}, h('a', { href: '/console/schedules/' + enc(s.name), 'data-link': '' }, s.name)), h('td', {}, mono(s.cron)), h('td', {}, s.timezone),
          h('td', {}, s.workflow), h('td', {}, nextFire(s)),
          h('td', {}, s.lastFire && s.lastFire.at ? when(s.lastFire.at) : '-', s.lastFire && s.lastFire.error ? h('span', { class: 'badge s-FAILED', title: s.lastFire.error }, 'refused') : null),
          h('td', { class: 'mono' }, s.version), h('td', {}, pauseButton(s, message, load)))))));
    }).catch(e => clear(box, problem(e)));
  }
  load();
}

export function renderOne(main, [name], { navigate }) {
  if (name === 'new') return renderNew(main, navigate);
  const title = h('h1', {}, 'Schedule ', mono(name));
  const message = h('div');
  const facts = h('div', { class: 'panel' });
  const box = h('div');
  main.append(title, message, facts, box);
  function draw(schedule) {
    drawFacts(schedule);
    if (!can('edit')) {
      clear(box, h('div', { class: 'muted small' }, 'Editing needs the admin role.'), json(definition(schedule)));
      return;
    }
    const editor = jsonEditor({ path: `/schedules/${enc(name)}`, text: JSON.stringify(definition(schedule), null, 2), version: schedule.version,
      what: 'schedule', onSaved: data => { if (data) drawFacts(data); } });
    clear(box, h('h2', {}, 'Definition'), editor.element);
  }
  function drawFacts(schedule) {
    clear(title, 'Schedule ', mono(name), h('span', { class: 'sub' }, `version ${schedule.version}`));
    const fires = schedule.nextFireTimes || [];
    clear(facts, h('dl', { class: 'kv' },
      h('dt', {}, 'Cron'), h('dd', {}, mono(schedule.cron), ' in ', schedule.timezone),
      h('dt', {}, 'Workflow'), h('dd', {}, h('a', { href: '/console/workflows/' + enc(schedule.workflow), 'data-link': '' }, schedule.workflow)),
      h('dt', {}, 'Overlap'), h('dd', {}, schedule.overlap), h('dt', {}, 'Catch-up'), h('dd', {}, schedule.catchUp),
      h('dt', {}, 'Paused'), h('dd', {}, String(schedule.paused), ' ', pauseButton(schedule, message, draw)),
      h('dt', {}, 'Last fire'), h('dd', {}, schedule.lastFire && schedule.lastFire.at ? when(schedule.lastFire.at) : '-',
        schedule.lastFire && schedule.lastFire.runId ? h('span', {}, ' run ', h('a', { href: '/console/runs/' + schedule.lastFire.runId, 'data-link': '' }, mono(schedule.lastFire.runId))) : null,
        schedule.lastFire && schedule.lastFire.error ? h('div', { class: 'muted small' }, schedule.lastFire.error) : null)),
      h('h2', {}, 'Next fire times'),
      fires.length === 0 ? h('div', { class: 'muted' }, schedule.paused ? 'Paused: fires nothing.' : 'None.')
        : h('table', { 'data-next-fires': '' }, h('thead', {}, h('tr', {}, h('th', {}, schedule.timezone), h('th', {}, 'UTC'))),
          h('tbody', {}, fires.map(f => h('tr', {}, h('td', { class: 'mono' }, f.local), h('td', { class: 'mono' }, f.utc))))));
  }
  get(`/schedules/${enc(name)}`).then(draw).catch(e => clear(message, problem(e)));
}

function renderNew(main, navigate) {
  const nameInput = h('input', { type: 'text', placeholder: 'nightly-report', 'data-schedule-name': '' });
  const box = h('div');
  main.append(h('h1', {}, 'New schedule'), h('div', { class: 'row' }, h('label', {}, 'Name ', nameInput)), box);
  if (!can('edit')) {
    clear(box, h('div', { class: 'muted small' }, 'Creating a schedule needs the admin role.'));
    return;
  }
  function draw() {
    const name = nameInput.value.trim() || 'unnamed';
    const editor = jsonEditor({ path: `/schedules/${enc(name)}`, text: JSON.stringify(TEMPLATE, null, 2), version: null, what: 'schedule',
      onSaved: () => navigate('/console/schedules/' + enc(name)) });
    clear(box, h('div', { class: 'muted small' }, 'cron in Quartz form, seconds first; overlap: skip | allow | cancelPrevious; catchUp: none | last | all.'), editor.element);
  }
  nameInput.addEventListener('change', draw);
  draw();
}
