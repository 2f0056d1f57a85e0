// /api/v1 like any client: a bearer token, JSON, problem+json errors, ETag/If-Match for edits.
import { token } from './auth.js';

export class ApiError extends Error {
  constructor(status, problem, method, path) {
    super((problem && (problem.detail || problem.title)) || `${method} ${path} answered ${status}`);
    this.status = status;
    this.problem = problem || {};
    this.method = method;
    this.path = path;
  }
}

/** A counter the pages show and tests read: how many API calls this page made, by "METHOD path". */
export const calls = {};

export async function request(method, path, { body, ifMatch, headers } = {}) {
  const h = { Accept: 'application/json', ...(headers || {}) };
  const t = token();
  if (t) h.Authorization = 'Bearer ' + t;
  if (body !== undefined) h['Content-Type'] = 'application/json';
  if (ifMatch !== undefined && ifMatch !== null) h['If-Match'] = `"${ifMatch}"`;
  const key = `${method} ${path.split('?')[0]}`;
  calls[key] = (calls[key] || 0) + 1;
  let res;
  try {
    res = await fetch('/api/v1' + path, {
      method, headers: h,
      body: body === undefined ? undefined : (typeof body === 'string' ? body : JSON.stringify(body)),
    });
  } catch (e) {
    throw new ApiError(0, { title: 'Network error', detail: 'The server could not be reached: ' + e.message }, method, path);
  }
  const text = await res.text();
  let data = null;
  if (text) {
    try { data = JSON.parse(text); } catch (e) { data = text; }
  }
  if (!res.ok) {
    throw new ApiError(res.status, typeof data === 'object' ? data : { detail: String(data) }, method, path);
  }
  return { status: res.status, data, version: versionOf(res.headers.get('ETag')), next: nextLink(res.headers.get('Link')) };
}

/** The rel="next" target of an RFC 8288 Link header, as a path under /api/v1 (null: no next page). */
export function nextLink(link) {
  const m = link && /<([^>]+)>\s*;\s*rel="?next"?/.exec(link);
  return m ? m[1].replace(/^(https?:\/\/[^/]+)?\/api\/v1/, '') : null;
}

export function versionOf(etag) {
  if (!etag) return null;
  const n = Number(etag.replace(/^W\//, '').replace(/"/g, ''));
  return Number.isFinite(n) ? n : null;
}

export const get = path => request('GET', path).then(r => r.data);
export const enc = encodeURIComponent;
