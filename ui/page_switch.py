"""Drop a fragment's rerun that a browser sent for the page it has just left.

A page switch is a rerun request that names the new page. A fragment's rerun names the page too: the page the browser
showed when it sent it. A class checkpoint's board is rerun whenever the class's answers change (static/
class_poll.js) and the browser-id element answers once, so on a busy server one of them is often sent after the
student clicked another page but before the new page came back. Streamlit (1.67) runs it after the new page, as a
run of the old page: the browser is told it is on the old page again, and the new page's next poll lands on
elements that page no longer has. The browser's Streamlit then stops with "Bad delta path index" and a white page
(seen in tests/browser/test_classroom.py under load).

A rerun that names no fragment is the browser's own wish (a page switch, a widget, back and forward) and always
goes through; after one that names a page, a fragment's rerun that names another page is stale and is dropped.
The new page asks again for what it needs (its board polls, the browser-id element asks for the id again).
"""

from __future__ import annotations

from google.protobuf.message import DecodeError
from streamlit.proto.BackMsg_pb2 import BackMsg


class StaleFragmentFilter:
    """One websocket's view: the page the browser last asked for, and whether a message still belongs to it."""

    def __init__(self) -> None:
        self.page = ""  # the page the last whole-page rerun named; "" where it named none (a first load)

    def keep(self, data: bytes) -> bool:
        """Whether to pass this BackMsg on; remembers the page a whole-page rerun asks for."""
        message = BackMsg()
        try:
            message.ParseFromString(data)
        except DecodeError:  # not ours to judge: Streamlit answers a malformed message itself
            return True
        if message.WhichOneof("type") != "rerun_script":
            return True
        rerun = message.rerun_script
        if not rerun.fragment_id:
            self.page = rerun.page_script_hash  # "" (a first load, a page asked for by name): nothing is dropped
            return True
        return not (self.page and rerun.page_script_hash and rerun.page_script_hash != self.page)


def filtered_receive(receive):
    """``receive`` of an ASGI websocket that skips the stale fragment reruns :class:`StaleFragmentFilter` finds."""
    stale = StaleFragmentFilter()

    async def receive_current():
        while True:
            message = await receive()
            data = message.get("bytes") if message.get("type") == "websocket.receive" else None
            if data is None or stale.keep(data):
                return message

    return receive_current
