"""A shared-control commit over HTTP (``app.py`` mounts the route beside Streamlit's): no script run when nothing but
words and pictures the commit computes must follow.

``POST shared/commit`` ``{"tab", "values", "seq", "near"}``, or ``{"tab", "refresh": [section keys]}`` (stale
sections that came near the viewport), JSON of at most :data:`MAX_BODY` bytes → the sidebar's data a commit's rerun
would have sent (``seq``, every shared value, ``said``, ``stale``, ``later``), packed as an element's data is
(:func:`ui.component_data.packed_data`). ``tab`` is the token the sidebar sent the tab (:func:`ui.shared.tab_token`);
the session it names does the commit (:func:`ui.shared.commit_over_http`) in a thread given that session's context,
as Streamlit's documentation shows for a thread of one's own. A commit that must rerun a fragment (a section drawn
whole for that value), in presenter mode or of a student following the teacher, is answered ``{"commit": "on the
page", "rerun_for": …}`` (JSON, 200: an expected answer, not an error) and stores nothing: the browser then commits
through the sidebar's element, as before (``static/shared_controls.js``). A token this server does not know (a
restarted replica, a session closed) gets a 409, and the browser does the same.

Relative to the page (``/lab/shared/commit`` for an app under ``/lab/``). A malformed body gets a 400 with one short
JSON error, never a traceback, and nothing is stored; a body that is not JSON by its content type a 415.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from streamlit.runtime import Runtime
from streamlit.runtime.scriptrunner import add_script_run_ctx, get_script_run_ctx

from ui.class_http import NO_STORE, error_answer, in_folder, json_body

MAX_BODY = 4096  # bytes of a commit's body (four values and 64 section keys take ~ 2,000)
MAX_TABS = 4096  # tokens kept per server process, the oldest dropped first (a replica holds a class of a hundred)
PRUNE_FROM = 256  # past this many tokens (and each time their number doubles), those of closed sessions are dropped
_LOG = logging.getLogger(__name__)
_TABS: OrderedDict = OrderedDict()  # token -> the session's script-run context, as its last run had it
_LOCK = threading.Lock()  # one commit at a time: two of one tab never interleave (the GIL runs one anyway)
_prune_at = PRUNE_FROM


def register_tab(token: str) -> None:
    """Keep the running script's context under ``token`` (from a run of the session: the sidebar's). A context holds
    its session's state, so those of closed sessions are dropped as tokens accumulate."""
    global _prune_at
    ctx = get_script_run_ctx(suppress_warning=True)
    if ctx is None:
        return
    _TABS[token] = ctx
    _TABS.move_to_end(token)
    if len(_TABS) > _prune_at:
        for old in [old for old, kept in list(_TABS.items()) if not _open(kept)]:
            _TABS.pop(old, None)
        _prune_at = max(PRUNE_FROM, 2 * len(_TABS))
    while len(_TABS) > MAX_TABS:
        _TABS.popitem(last=False)


def _open(ctx) -> bool:
    """Whether the context's session is still open (connected) on this server."""
    return not Runtime.exists() or Runtime.instance().is_active_session(ctx.session_id)


def _session_context(token):
    """The context kept under ``token`` while its session is still open, else None (and it is dropped)."""
    ctx = _TABS.get(token) if isinstance(token, str) else None
    if ctx is None:
        return None
    if not _open(ctx):
        _TABS.pop(token, None)
        return None
    return ctx


def _commit_in_session(ctx, sent: dict):
    """:func:`ui.shared.commit_over_http` in a thread given the session's context; what it returned, or None."""
    from ui.shared import commit_over_http  # imported here: it loads Streamlit's elements

    answer = {}

    def work():
        try:
            answer["data"] = commit_over_http(sent)
        except Exception:  # the browser commits through the sidebar instead; the log says why
            _LOG.exception("a commit over HTTP failed")

    with _LOCK:
        thread = threading.Thread(target=work, name="shared-commit")
        add_script_run_ctx(thread, ctx)
        thread.start()
        thread.join()
    return answer.get("data")


def read_commit(sent) -> dict | None:
    """The commit (its JSON) as a dict with only the keys a commit has, or None when it is not that."""
    if not isinstance(sent, dict) or set(sent) - {"tab", "values", "seq", "near", "refresh"}:
        return None
    if not isinstance(sent.get("tab"), str):
        return None
    return sent


async def commit(request: Request) -> Response:
    from ui.component_data import packed_data

    if not in_folder(request):
        return error_answer(404, "not found")
    raw, error = await json_body(request, MAX_BODY)
    if error is not None:
        return error
    sent = read_commit(raw)
    if sent is None:
        return error_answer(400, "bad commit")
    ctx = _session_context(sent["tab"])
    if ctx is None:
        return error_answer(409, "no such session")
    data = await run_in_threadpool(_commit_in_session, ctx, sent)
    if data is None or data.get("refused"):  # an answer, not an error: the browser commits through the sidebar
        return JSONResponse({"commit": "on the page", "rerun_for": (data or {}).get("rerun_for", {})},
                            headers=NO_STORE)  # fmt: skip
    return Response(packed_data(data), media_type="application/octet-stream", headers=NO_STORE)


ROUTES = [Route("/{folder:path}shared/commit", commit, methods=["POST"])]
