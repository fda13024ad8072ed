"""A fragment's rerun sent for the page the browser has just left never reaches Streamlit (ui/page_switch.py).

The messages are Streamlit's own BackMsg protobufs, as the browser sends them; the sequence of the failure this
guards against was read off a real websocket (tests/browser/test_classroom.py under load): the page switch to
sinusoidal, then the browser-id element's answer still naming the relative page.
"""

from __future__ import annotations

import asyncio

from streamlit.proto.BackMsg_pb2 import BackMsg

from ui.http import LabHttpGuard
from ui.page_switch import StaleFragmentFilter

RELATIVE, SINUSOIDAL = "3e4d0223aa", "42aa21dabb"


def rerun(page: str = "", fragment: str = "", auto: bool = False) -> bytes:
    message = BackMsg()
    message.rerun_script.page_script_hash = page
    message.rerun_script.fragment_id = fragment
    message.rerun_script.is_auto_rerun = auto
    return message.SerializeToString()


def heartbeat() -> bytes:
    message = BackMsg()
    message.app_heartbeat = True
    return message.SerializeToString()


SWITCH_THEN_STALE = [
    rerun(),  # a first load names no page
    rerun(RELATIVE, "board", auto=True),  # the relative page's board polls
    rerun(RELATIVE, "identity"),  # the browser-id element answers
    rerun(SINUSOIDAL),  # the student clicks "Sinusoidal encoding"
    rerun(RELATIVE, "identity"),  # stale: sent before the new page came back
    rerun(RELATIVE, "board", auto=True),  # stale
    heartbeat(),
    rerun(SINUSOIDAL, "board", auto=True),  # the new page's own board
]
KEPT = [0, 1, 2, 3, 6, 7]


def test_a_fragment_rerun_for_the_page_just_left_is_dropped_and_everything_else_kept():
    stale = StaleFragmentFilter()
    assert [n for n, data in enumerate(SWITCH_THEN_STALE) if stale.keep(data)] == KEPT


def test_before_any_page_is_named_and_after_a_rerun_without_a_page_nothing_is_dropped():
    stale = StaleFragmentFilter()
    assert stale.keep(rerun(RELATIVE, "board", auto=True))  # the first load named no page
    assert stale.keep(rerun(RELATIVE))
    assert not stale.keep(rerun(SINUSOIDAL, "board"))
    assert stale.keep(rerun())  # a rerun naming no page: unknown again, nothing to judge by
    assert stale.keep(rerun(SINUSOIDAL, "board"))
    assert stale.keep(rerun(RELATIVE, "board"))


def test_a_fragment_rerun_that_names_no_page_and_malformed_bytes_pass_to_streamlit():
    stale = StaleFragmentFilter()
    assert stale.keep(rerun(RELATIVE))
    assert stale.keep(rerun("", "board"))
    assert stale.keep(b"\xff\xfe not a protobuf")


def run_websocket(path: str, frames: list[bytes]) -> list[bytes]:
    """The bytes an ASGI app behind LabHttpGuard receives when a browser sends ``frames`` on ``path``."""
    incoming = [{"type": "websocket.connect"}]
    incoming += [{"type": "websocket.receive", "bytes": data} for data in frames]
    incoming.append({"type": "websocket.disconnect", "code": 1000})
    received: list[bytes] = []

    async def receive():
        return incoming.pop(0)

    async def send(_message):
        pass

    async def app(scope, receive, send):
        while (message := await receive())["type"] != "websocket.disconnect":
            if message["type"] == "websocket.receive":
                received.append(message["bytes"])

    scope = {"type": "websocket", "path": path, "headers": []}
    asyncio.run(LabHttpGuard(app)(scope, receive, send))
    return received


def test_the_app_behind_the_middleware_never_receives_the_stale_reruns_on_its_stream():
    assert run_websocket("/_stcore/stream", SWITCH_THEN_STALE) == [SWITCH_THEN_STALE[n] for n in KEPT]


def test_another_websocket_passes_untouched():
    assert run_websocket("/elsewhere", SWITCH_THEN_STALE) == SWITCH_THEN_STALE
