// The bearer token lives in sessionStorage: it survives reloads and deep links in this tab, and is gone with the tab.
const KEY = 'ductor.token';

export function token() {
  return sessionStorage.getItem(KEY);
}

export function signIn(jwt) {
  const trimmed = (jwt || '').trim().replace(/^Bearer\s+/i, '');
  const payload = decode(trimmed);
  if (!payload) {
    throw new Error('That is not a JWT (three base64url parts separated by dots).');
  }
  sessionStorage.setItem(KEY, trimmed);
  return payload;
}

export function signOut() {
  sessionStorage.removeItem(KEY);
}

/** The token's payload, decoded client side for display only: the server verifies it on every call. */
export function claims() {
  return decode(token()) || {};
}

function decode(jwt) {
  if (!jwt) return null;
  const parts = jwt.split('.');
  if (parts.length !== 3) return null;
  try {
    const base64 = parts[1].replace(/-/g, '+').replace(/_/g, '/');
    const json = decodeURIComponent(atob(base64).split('').map(c => '%' + c.charCodeAt(0).toString(16).padStart(2, '0')).join(''));
    return JSON.parse(json);
  } catch (e) {
    return null;
  }
}

export function roles() {
  const groups = claims().groups;
  return Array.isArray(groups) ? groups : (groups ? [groups] : []);
}

export function tenant() {
  return claims().tenant || '?';
}

export function expired() {
  const exp = claims().exp;
  return typeof exp === 'number' && exp * 1000 < Date.now();
}

// What each role may do (CONTRACT §3); reads are open to every role.
const ABILITIES = {
  edit: ['admin'],          // PUT workflows, pools, rules
  operate: ['operator'],    // cancel, PATCH (retry, skip), dead letters
  start: ['client'],        // start runs, send signals and events
};

export function can(ability) {
  const mine = roles();
  return (ABILITIES[ability] || []).some(r => mine.includes(r));
}
