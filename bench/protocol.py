"""Streamlit's own websocket protocol, as the browser speaks it (streamlit 1.67, starlette server).

The browser opens ``ws://host/_stcore/stream`` with the subprotocol header ``streamlit`` (the header's later
entries carry an XSRF token and a session id to resume; both are optional), then sends binary ``BackMsg``
protobufs and receives one binary ``ForwardMsg`` per frame. A rerun is ``BackMsg.rerun_script`` with a
``ClientState``: the page's script hash, the widget values that changed (``WidgetState`` by element id; a
slider's value is ``double_array_value``) and, for a widget inside an ``st.fragment``, that fragment's id. The
run ends with ``ForwardMsg.script_finished``. Element ids and fragment ids come from the ``delta`` messages.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field

import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.Slider_pb2 import Slider

FINISHED_OK = {ForwardMsg.FINISHED_SUCCESSFULLY, ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY}


@dataclass
class SliderInfo:
    """What the client needs to move a slider: its element id, range, step, and the fragment it lives in."""

    element_id: str
    minimum: float
    maximum: float
    step: float
    is_int: bool
    fragment_id: str

    def random_value(self, rng: random.Random) -> float:
        steps = round((self.maximum - self.minimum) / self.step) if self.step else 0
        value = self.minimum + self.step * rng.randint(0, max(steps, 0))
        return float(int(value)) if self.is_int else value


@dataclass
class RunResult:
    """One rerun as the client saw it: seconds from request to ``script_finished``, and what went wrong."""

    seconds: float
    errors: list[str] = field(default_factory=list)
    sliders: dict[str, SliderInfo] = field(default_factory=dict)  # by element id
    pages: dict[str, str] = field(default_factory=dict)  # url path name -> page script hash
    payload_bytes: int = 0


class StreamlitClient:
    """One browser tab: ``await client.connect()``, then ``await client.rerun(page_hash, {id: value}, fragment)``."""

    def __init__(self, port: int, timeout: float = 30.0, local_address: str | None = None):
        self.port = port
        self.timeout = timeout
        self.local_address = local_address  # connect from this loopback address (e.g. 127.0.5.1), not 127.0.0.1
        self.socket = None

    async def connect(self) -> None:
        self.socket = await websockets.connect(
            f"ws://127.0.0.1:{self.port}/_stcore/stream",
            subprotocols=["streamlit"],
            origin=f"http://127.0.0.1:{self.port}",
            max_size=None,
            open_timeout=self.timeout,
            **({"local_addr": (self.local_address, 0)} if self.local_address else {}),
        )

    async def close(self) -> None:
        if self.socket is not None:
            await self.socket.close()

    async def rerun(self, page_hash: str = "", widgets: dict | None = None, fragment_id: str = "") -> RunResult:
        """Send rerun_script and read ForwardMsgs until script_finished (or the timeout); time the round trip."""
        message = BackMsg()
        state = message.rerun_script
        state.page_script_hash = page_hash
        state.fragment_id = fragment_id
        for element_id, value in (widgets or {}).items():
            widget = state.widget_states.widgets.add()
            widget.id = element_id
            widget.double_array_value.data.append(value)
        start = time.perf_counter()
        await self.socket.send(message.SerializeToString())
        result = RunResult(seconds=float("nan"))
        deadline = start + self.timeout
        while True:
            remaining = deadline - time.perf_counter()
            if remaining <= 0:
                result.errors.append("timeout")
                return result
            try:
                frame = await _receive(self.socket, remaining)
            except TimeoutError:
                result.errors.append(f"timeout: no script_finished within {self.timeout:.0f} s")
                return result
            result.payload_bytes += len(frame)
            forward = ForwardMsg.FromString(frame)
            kind = forward.WhichOneof("type")
            if kind == "navigation":  # st.navigation lists the pages of the app
                result.pages = {page.url_pathname: page.page_script_hash for page in forward.navigation.app_pages}
            elif kind == "delta":
                _read_delta(forward, result)
            elif kind == "script_finished":
                result.seconds = time.perf_counter() - start
                if forward.script_finished not in FINISHED_OK:
                    result.errors.append(ForwardMsg.ScriptFinishedStatus.Name(forward.script_finished))
                return result


async def _receive(socket, timeout: float) -> bytes:
    import asyncio

    frame = await asyncio.wait_for(socket.recv(), timeout)
    return frame if isinstance(frame, bytes) else frame.encode()


def _read_delta(forward: ForwardMsg, result: RunResult) -> None:
    delta = forward.delta
    if delta.WhichOneof("type") != "new_element":
        return
    element = delta.new_element
    kind = element.WhichOneof("type")
    if kind == "exception":
        result.errors.append(f"exception: {element.exception.type}: {element.exception.message[:200]}")
    elif kind == "slider" and element.slider.type == Slider.SLIDER and not element.slider.disabled:
        slider = element.slider
        result.sliders[slider.id] = SliderInfo(
            element_id=slider.id,
            minimum=slider.min,
            maximum=slider.max,
            step=slider.step,
            is_int=slider.data_type == Slider.INT,
            fragment_id=delta.fragment_id,
        )
