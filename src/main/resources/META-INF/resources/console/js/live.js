// A run's live updates: GET /api/v1/runs/{id}/events read with fetch() streaming rather than EventSource, because
// EventSource cannot send the Authorization header and a token in the URL would land in logs and history. The
// stream is parsed here (event/id/data lines); a dropped stream reconnects with Last-Event-ID, and the server sends
// what changed since. It ends by itself after a terminal state.
import { token } from './auth.js';

export function follow(runId, { onRun, onState }) {
  let last = null;
  let stopped = false;
  let controller = null;
  let delay = 500;

  const state = s => onState && onState(s);

  async function connect() {
    while (!stopped) {
      controller = new AbortController();
      const headers = { Accept: 'text/event-stream', Authorization: 'Bearer ' + token() };
      if (last !== null) headers['Last-Event-ID'] = String(last);
      let ended = false;
      try {
        const res = await fetch(`/api/v1/runs/${encodeURIComponent(runId)}/events`, { headers, signal: controller.signal });
        if (!res.ok) {
          state({ live: false, status: res.status });
          if ([400, 401, 403, 404].includes(res.status)) return;
        } else {
          state({ live: true });
          delay = 500;
          ended = await read(res.body);
        }
      } catch (e) {
        if (stopped) return;
        state({ live: false, error: e.message });
      }
      if (ended || stopped) {
        state({ live: false, ended: true });
        return;
      }
      await new Promise(r => setTimeout(r, delay));
      delay = Math.min(delay * 2, 8000);
    }
  }

  /** Reads events until the server closes; true when the last run event was terminal (the stream is done). */
  async function read(body) {
    const reader = body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    let terminal = false;
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return terminal;
      buffer += value;
      let cut;
      while ((cut = buffer.search(/\r?\n\r?\n/)) >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut).replace(/^\r?\n\r?\n/, '');
        const event = parse(block);
        if (event && event.event === 'run' && event.data) {
          const run = JSON.parse(event.data);
          if (event.id !== undefined) last = event.id;
          terminal = ['SUCCEEDED', 'FAILED', 'CANCELLED'].includes(run.status);
          onRun(run);
        }
      }
    }
  }

  function parse(block) {
    const event = { event: 'message', data: '' };
    let hasData = false;
    for (const line of block.split(/\r?\n/)) {
      if (!line || line.startsWith(':')) continue;
      const i = line.indexOf(':');
      const field = i < 0 ? line : line.slice(0, i);
      const value = i < 0 ? '' : line.slice(i + 1).replace(/^ /, '');
      if (field === 'data') { event.data += (hasData ? '\n' : '') + value; hasData = true; }
      else if (field === 'event') event.event = value;
      else if (field === 'id') event.id = value;
    }
    return hasData ? event : null;
  }

  connect();
  return {
    close() {
      stopped = true;
      if (controller) controller.abort();
    },
  };
}
