"""The class's two small HTTP routes (``app.py`` mounts them beside Streamlit's): what a student's tab polls, and its
heartbeat. No script runs per request: one read or write of the class store (:class:`classroom.service.Classroom`).

* ``GET class/state?code=K7QF3M&cp=cp_rel_t5.0123456789abcdef,cp_rel_alibi`` → ``{"view": n, "page", "settings",
  "checkpoint"?, "boards": {checkpoint: print}, "start"}``: the class's view number and the view's page (its url
  path, as :func:`ui.follow.url_path` gives it) and settings, and for each checkpoint (``name`` or ``name.asked``, the
  question the page shows) the :func:`~classroom.service.board_print` of its board; ``{"over": true}`` when the class
  is over; ``start`` is :data:`START`, this server process's id. static/class_poll.js asks it twice a second per tab
  and reruns a fragment only when its part changed, and the whole page when ``start`` changed (a restarted replica:
  Streamlit's reconnect gives the tab a fresh session that has never run the page).
* ``POST class/beat`` ``{"code", "browser", "mode"}`` (JSON, at most :data:`MAX_BODY` bytes) → 204: a student's
  browser says whether it follows the teacher or explores (:meth:`~classroom.service.Classroom.beat`).

Both are relative to the page (``/lab/class/state`` for an app under ``/lab/``). A malformed code, checkpoint or body
gets a 400 with one short JSON error (never a traceback, nothing stored); a body that is not JSON by its content type
a 415 (so another site's page cannot post one without the browser asking first); a store that is down a 503.
"""

from __future__ import annotations

import json
import secrets

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from classroom.service import MAX_WATCHED

MAX_BODY = 512  # bytes of a heartbeat's body (one is about 90)
MAX_QUERY = 1024  # characters of a state request's query string (8 checkpoints with their questions take ~ 450)
NO_STORE = {"Cache-Control": "no-store"}
START = secrets.token_hex(8)  # this server process's id, made once per start: a tab sees a restart by it


def error_answer(status: int, what: str) -> JSONResponse:
    """One short JSON error, never a traceback, never cached."""
    return JSONResponse({"error": what}, status_code=status, headers=NO_STORE)


async def json_body(request: Request, limit: int):
    """The request's JSON body, or the error to answer: 415 when its content type is not JSON (so another site's
    page cannot post one without the browser asking first), 413 past ``limit`` bytes (declared, or read: a body
    without a length is read no further), 400 when it is not JSON. Returns ``(value, None)`` or ``(None, error)``."""
    if request.headers.get("content-type", "").split(";")[0].strip().lower() != "application/json":
        return None, error_answer(415, "JSON only")
    declared = request.headers.get("content-length", "")
    if declared and (not declared.isdigit() or int(declared) > limit):
        return None, error_answer(413, "too large")
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            return None, error_answer(413, "too large")
    try:
        return json.loads(body), None
    except (ValueError, UnicodeDecodeError):
        return None, error_answer(400, "not JSON")


def in_folder(request: Request) -> bool:
    """The route's path is ``<folder>class/...``: the folder must be empty or end with "/" (``/xclass/state`` is no
    route)."""
    folder = request.path_params.get("folder", "")
    return folder == "" or folder.endswith("/")


def read_watched(raw: str | None) -> list[tuple[str, str | None]] | None:
    """``cp=a,b.0123456789abcdef`` as [(checkpoint, asked or None)], or None when it is not that shape (each part is
    checked by the service)."""
    if raw is None or raw == "":
        return []
    parts = raw.split(",")
    if len(parts) > MAX_WATCHED:
        return None
    watched = []
    for part in parts:
        checkpoint, _, asked = part.partition(".")
        watched.append((checkpoint, asked or None))
    return watched


def state(request: Request) -> Response:
    """A sync endpoint: Starlette runs it in its thread pool, so a store read never blocks the server's loop."""
    from ui.classroom import classroom  # the server's one Classroom (imported here: it loads Streamlit's elements)
    from ui.follow import url_path

    if not in_folder(request):
        return error_answer(404, "not found")
    query = request.query_params
    if len(request.url.query) > MAX_QUERY or len(query.getlist("code")) != 1 or len(query.getlist("cp")) > 1:
        return error_answer(400, "bad request")
    watched = read_watched(query.get("cp"))
    if watched is None:
        return error_answer(400, "too many checkpoints")
    outcome = classroom().state(query.get("code"), watched)
    if outcome.message == "classroom.class_over":
        return JSONResponse({"over": True}, headers=NO_STORE)
    if outcome.message == "classroom.err_store":
        return error_answer(503, "store unavailable")
    if not outcome.ok:
        return error_answer(400, "bad code" if outcome.message == "classroom.err_bad_code" else "bad checkpoint")
    seq, view, boards = outcome.value
    answer: dict = {"view": seq, "boards": boards, "start": START}
    if view is not None:
        answer |= {"page": url_path(view.step.page), "settings": view.step.settings}
        if view.step.checkpoint:
            answer["checkpoint"] = view.step.checkpoint
    return JSONResponse(answer, headers=NO_STORE)


async def beat(request: Request) -> Response:
    from ui.classroom import classroom

    if not in_folder(request):
        return error_answer(404, "not found")
    sent, error = await json_body(request, MAX_BODY)
    if error is not None:
        return error
    if not isinstance(sent, dict) or set(sent) - {"code", "browser", "mode"}:
        return error_answer(400, "bad heartbeat")
    outcome = await run_in_threadpool(classroom().beat, sent.get("code"), sent.get("browser"), sent.get("mode"))
    if outcome.ok:
        return Response(status_code=204, headers=NO_STORE)
    if outcome.message == "classroom.class_over":
        return JSONResponse({"over": True}, headers=NO_STORE)
    if outcome.message == "classroom.err_store":
        return error_answer(503, "store unavailable")
    return error_answer(400, "bad heartbeat")


ROUTES = [
    Route("/{folder:path}class/state", state, methods=["GET"]),
    Route("/{folder:path}class/beat", beat, methods=["POST"]),
]
