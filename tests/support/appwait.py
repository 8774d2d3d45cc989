"""When the app in a browser tab has finished the script runs asked of it, and shows nothing
left from before: the one wait of the browser tests, after a page loads, after a click on
another page and after every interaction that reruns the script.

Streamlit's DOM alone cannot tell this. After a click the previous run's elements stay in
the page until the new run has drawn its own; they carry ``data-stale="true"`` only while
the stApp element's ``data-test-script-state`` is ``running`` (none at ``notRunning``), and
that state stays ``notRunning`` from the click until the server's first answer arrives
(the click sets no "rerun requested" state), so a wait on those attributes alone can end
before the new run has begun. Waiting for the status widget to go ("Running…") has the same
gap, and fixed sleeps only shrink it.

So a script put in the tab before the app's own (``watch_runs``) reads the app's websocket:
the rerun requests the tab sends (BackMsg ``rerun_script``) and the server's answers
(ForwardMsg ``new_session`` when a run starts, ``script_finished`` when it ends, and
``session_status_changed`` with ``script_is_running`` false when the server is idle
again). ``settled`` waits until the last request's run has started and finished and the
server is idle, and then until the page shows it: connected, ``notRunning``, no stale
element and no loading skeleton, for ``CALM_MS`` in a row (Streamlit clears the previous
run's elements when it handles ``script_finished``, a moment after the frame arrives).
``rerun`` wraps an interaction: it waits for the request the interaction sends, then as
``settled``.

What a run draws after that is the element's own work (a Vega chart renders its SVG, a
data grid its cells, in their own time): wait for that with ``expect`` on the thing itself.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

#: how long the page must have shown a finished run, with nothing stale, before it is read
CALM_MS = 100

#: put in every document of the tab before the app's scripts (``add_init_script``)
_WATCH = """(() => {
  if (window.__raidsweepRuns) return;
  const runs = {doc: Math.random(), requests: 0, phase: 'loading', idleAt: 0, calmSince: null};
  window.__raidsweepRuns = runs;
  const to = (phase) => {
    runs.phase = phase;
    runs.calmSince = null;
    if (phase === 'idle') runs.idleAt = performance.now();
  };
  // the top-level fields of a protobuf message: [field number, value or bytes]
  const varint = (b, i) => {
    let v = 0, s = 1, x;
    do { x = b[i++]; v += (x & 0x7f) * s; s *= 128; } while (x & 0x80 && i < b.length);
    return [v, i];
  };
  const fields = (b) => {
    const out = [];
    let i = 0, t, v;
    while (i < b.length) {
      [t, i] = varint(b, i);
      const wire = t & 7, field = Math.floor(t / 8);
      if (wire === 0) { [v, i] = varint(b, i); out.push([field, v]); }
      else if (wire === 2) { [v, i] = varint(b, i); out.push([field, b.subarray(i, i + v)]); i += v; }
      else if (wire === 1) { i += 8; }
      else if (wire === 5) { i += 4; }
      else break;
    }
    return out;
  };
  const bytes = (data) => data instanceof ArrayBuffer ? new Uint8Array(data)
    : ArrayBuffer.isView(data) ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
    : null;
  // BackMsg.rerun_script = 11; ForwardMsg.new_session = 4, .script_finished = 6 (2: ended
  // early for a rerun, another run follows), .session_status_changed = 9 (script_is_running = 2)
  const sent = (b) => {
    if (fields(b).some(([f]) => f === 11)) { runs.requests += 1; to('requested'); }
  };
  const received = (b) => {
    for (const [f, v] of fields(b)) {
      if (f === 4) to('running');
      else if (f === 6 && v !== 2 && runs.phase === 'running') to('finished');
      else if (f === 9) {
        const running = fields(v).some(([g, x]) => g === 2 && x);
        if (!running && runs.phase === 'finished') to('idle');
        else if (running && runs.phase === 'idle') to('running');
      }
    }
  };
  const Native = window.WebSocket;
  class Watched extends Native {
    constructor(...args) {
      super(...args);
      // registered before the app's own listener: it sees each frame first
      this.addEventListener('message', (e) => { const b = bytes(e.data); if (b) received(b); });
    }
    send(data) {
      const b = bytes(data);
      if (b) sent(b);
      return super.send(data);
    }
  }
  window.WebSocket = Watched;
})();"""

#: true once the last run asked for is over and the page has shown it for ``calm`` ms
_SETTLED = """({calm, doc, requests}) => {
  const runs = window.__raidsweepRuns;
  if (!runs) throw new Error('the tab is not watched: call watch_runs before opening the app');
  if (doc !== null && runs.doc === doc && runs.requests <= requests) return false;
  const app = document.querySelector('[data-testid="stApp"]');
  const calm_now = runs.phase === 'idle' && app !== null
    && app.getAttribute('data-test-connection-state') === 'CONNECTED'
    && app.getAttribute('data-test-script-state') === 'notRunning'
    && !document.querySelector('[data-stale="true"], [data-testid="stSkeleton"]');
  const now = performance.now();
  if (!calm_now) { runs.calmSince = null; return false; }
  if (runs.calmSince === null) runs.calmSince = now;
  return now - runs.calmSince >= calm && now - runs.idleAt >= calm;
}"""

#: what the tab knows, for the message of a wait that timed out
_STATE = """() => {
  const app = document.querySelector('[data-testid="stApp"]');
  const runs = window.__raidsweepRuns;
  return {runs: runs ? {phase: runs.phase, requests: runs.requests} : null,
          connection: app && app.getAttribute('data-test-connection-state'),
          script: app && app.getAttribute('data-test-script-state'),
          stale: document.querySelectorAll('[data-stale="true"]').length,
          skeletons: document.querySelectorAll('[data-testid="stSkeleton"]').length};
}"""


def watch_runs(target: Any) -> None:
    """Watch the app's script runs in every document that the Playwright page or browser
    context ``target`` opens from now on (call it before ``goto``)."""
    target.add_init_script(script=_WATCH)


def _wait(page: Any, asked: tuple[float, int] | None, timeout_ms: float | None) -> None:
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    doc, requests = asked if asked is not None else (None, 0)
    arg = {"calm": CALM_MS, "doc": doc, "requests": requests}
    try:
        page.wait_for_function(_SETTLED, arg=arg, timeout=timeout_ms)
    except PlaywrightTimeout as e:
        state = page.evaluate(_STATE)
        if asked is not None and state["runs"] and state["runs"]["requests"] <= asked[1]:
            raise AssertionError(f"the interaction asked for no run: {state}") from e
        what = "the run asked for" if asked is not None else "the app's run"
        raise AssertionError(f"{what} did not finish and show in the page: {state}") from e


def settled(page: Any, timeout_ms: float | None = None) -> None:
    """Until the app in ``page`` has finished every run asked of it and shows no element of
    an earlier run: after ``goto``, ``reload``, and before reading a page that an
    interaction made without ``rerun``. ``timeout_ms``: the page's default timeout if None."""
    _wait(page, None, timeout_ms)


@contextlib.contextmanager
def rerun(page: Any, timeout_ms: float | None = None) -> Iterator[None]:
    """Around an interaction that reruns the app's script (a click on a link to another page,
    a select box's option, a button, a table's row, Back): after it, until the rerun it
    asked for has finished and the page shows nothing from before. Waits for the page to be
    settled first, so that a run still on its way cannot pass for the one asked for."""
    _wait(page, None, timeout_ms)
    asked = page.evaluate("() => [window.__raidsweepRuns.doc, window.__raidsweepRuns.requests]")
    yield
    _wait(page, (asked[0], asked[1]), timeout_ms)
