// Small DOM helpers shared by the pages.
import { ApiError } from './api.js';

export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') el.className = v;
    else if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else if (k === 'value') el.value = v;
    else if (k === 'checked') el.checked = !!v;
    // Through the CSSOM: the Content-Security-Policy (style-src 'self') refuses style attributes set as markup.
    else if (k === 'style') el.style.cssText = v;
    else el.setAttribute(k, v === true ? '' : v);
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

export function clear(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

export function badge(status) {
  return h('span', { class: `badge s-${status}`, 'data-status': status }, status);
}

export function mono(text, attrs) {
  return h('code', attrs, text);
}

// A run id's last 12 hex digits: a UUIDv7 starts with its creation time, so the first digits are the same for every
// run of the same moment, while the last are random. The full id is in the title and behind the copy button.
export function shortId(id) {
  return id ? id.slice(-12) : '';
}

/** A run id shown short (a link when {@code href} is given), with the whole id as its title and a button that copies it. */
export function runId(id, { href } = {}) {
  const copy = h('button', { class: 'copy', type: 'button', title: 'copy the whole run id', 'data-copy': id,
    onclick: e => {
      e.preventDefault();
      e.stopPropagation();
      copyText(id).then(() => { copy.textContent = '✓'; setTimeout(() => { copy.textContent = '⧉'; }, 1200); });
    } }, '⧉');
  const text = mono(shortId(id), { title: id, 'data-run-id-short': id });
  return h('span', { class: 'run-id' }, href ? h('a', { href, 'data-link': '' }, text) : text, copy);
}

/** The clipboard where the browser allows it (a secure context), else a selected text area and execCommand. */
function copyText(text) {
  if (navigator.clipboard && window.isSecureContext) return navigator.clipboard.writeText(text).catch(() => fallbackCopy(text));
  return Promise.resolve(fallbackCopy(text));
}

function fallbackCopy(text) {
  const area = h('textarea', { class: 'offscreen' });
  area.value = text;
  document.body.append(area);
  area.select();
  try { document.execCommand('copy'); } catch (e) { /* nothing more to try */ }
  area.remove();
}

export function when(iso) {
  if (!iso) return '';
  const d = new Date(iso);
  return d.toLocaleString(undefined, { month: 'short', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' });
}

/** A time to the millisecond, for histories where the order of close events matters. */
export function whenMs(iso) {
  if (!iso) return '';
  const d = new Date(iso);
  return d.toLocaleString(undefined, { month: 'short', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit',
    fractionalSecondDigits: 3 });
}

export function ago(iso) {
  if (!iso) return '';
  const s = Math.round((Date.now() - new Date(iso).getTime()) / 1000);
  if (s < 60) return `${Math.max(s, 0)}s ago`;
  if (s < 3600) return `${Math.round(s / 60)}m ago`;
  if (s < 86400) return `${Math.round(s / 3600)}h ago`;
  return `${Math.round(s / 86400)}d ago`;
}

/** A coloured, read-only JSON viewer. */
export function json(value, attrs) {
  const pre = h('pre', { class: 'json', ...(attrs || {}) });
  if (value === undefined) {
    pre.append(h('span', { class: 'z' }, '(none)'));
    return pre;
  }
  const text = JSON.stringify(value, null, 2);
  const re = /("(?:\\.|[^"\\])*")(\s*:)?|\b(true|false)\b|\b(null)\b|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/g;
  let last = 0;
  for (const m of text.matchAll(re)) {
    pre.append(text.slice(last, m.index));
    if (m[1]) pre.append(h('span', { class: m[2] ? 'k' : 's' }, m[1]), m[2] || '');
    else if (m[3]) pre.append(h('span', { class: 'b' }, m[3]));
    else if (m[4]) pre.append(h('span', { class: 'z' }, m[4]));
    else pre.append(h('span', { class: 'n' }, m[5]));
    last = m.index + m[0].length;
  }
  pre.append(text.slice(last));
  return pre;
}

/** A problem+json error explained for a person; 401 and 403 say what to do. */
export function problem(error) {
  if (!(error instanceof ApiError)) {
    return h('div', { class: 'notice error' }, h('b', {}, 'Something went wrong'), String(error && error.message || error));
  }
  const p = error.problem || {};
  let title = p.title || `Error ${error.status}`;
  let advice = null;
  if (error.status === 401) {
    title = 'Not signed in (401)';
    advice = 'The server did not accept your token: it is missing, expired or signed by a key this server does not trust. Sign in again.';
  } else if (error.status === 403) {
    title = 'Not allowed for your role (403)';
    const needed = Array.isArray(p.neededRoles) && p.neededRoles.length ? p.neededRoles.join(' or ') : null;
    advice = needed
      ? `Your token is valid, but this needs the role ${needed}. Sign in with a token that has it.`
      : 'Your token is valid, but its role may not do this. Sign in with a token that has the role this action needs.';
  }
  return h('div', { class: 'notice error', 'data-status': error.status, role: 'alert' },
    h('b', {}, title), p.detail || error.message, advice ? h('div', {}, advice) : null,
    error.status === 401 ? h('div', {}, h('a', { href: '/console/signin', 'data-link': '' }, 'Sign in')) : null,
    Array.isArray(p.violations) && p.violations.length ? h('ul', {}, p.violations.map(v =>
      h('li', {}, v.node ? h('code', {}, v.node) : null, v.node ? ' ' : '', v.field ? h('span', { class: 'muted' }, v.field + ': ') : '', v.message))) : null);
}

export function notice(kind, title, ...body) {
  return h('div', { class: `notice ${kind}` }, h('b', {}, title), ...body);
}

/**
 * Shows a banner in {@code box} until it is no longer relevant: {@code ms} later (default 8 s), or when a newer
 * banner replaces it, or when the caller clears it. Errors are left for the reader to dismiss (x).
 */
export function flash(box, banner, { ms = 8000 } = {}) {
  const close = h('button', { class: 'dismiss', type: 'button', title: 'dismiss', 'data-action': 'dismiss', onclick: () => banner.remove() }, '×');
  banner.prepend(close);
  clear(box, banner);
  if (!banner.classList.contains('error') && ms > 0) setTimeout(() => banner.remove(), ms);
  return banner;
}

/** A fresh idempotency key for a command this page sends once. */
export function freshKey(prefix) {
  const id = crypto.randomUUID ? crypto.randomUUID() : String(Date.now()) + Math.random().toString(16).slice(2);
  return `${prefix}-${id}`;
}

// A run's tags as chips, key:value as the list's tag filter takes them; a link to the runs carrying that tag when
// `linked`. Nothing for a run without tags.
export function tagChips(tags, linked) {
  return Object.entries(tags || {}).map(([key, value]) => {
    const text = `${key}:${value}`;
    return linked
      ? h('a', { class: 'tag', href: '/console/runs?tag=' + encodeURIComponent(text), 'data-link': '', 'data-tag': text }, text)
      : h('span', { class: 'tag', 'data-tag': text }, text);
  });
}
