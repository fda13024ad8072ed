"""The lesson keys (→ ← Page Down Page Up, static/follow.js) over a real server's websocket (bench.protocol): each
press moves the lesson one step, even when Streamlit delivers its trigger twice (a rerun coalesced with a class's
polled fragments replays it: a teacher's Page Down once went two steps), and a press without the browser's stamp or
with a bad step moves nothing."""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
from urllib.parse import parse_qs

import pytest
from streamlit.proto.Element_pb2 import Element

from bench.protocol import StreamlitClient
from bench.server import StreamlitServer
from classroom.lesson import Step, encode_link

LESSON = [Step(page="decay", settings={"dim": dim}) for dim in (64, 128, 256, 512)]


def lesson_element(run) -> tuple[str, str]:
    """(element id, fragment id) of the lesson's browser element in a run."""
    for fragment, element in run.drawn:
        proto = Element.FromString(element)
        if proto.WhichOneof("type") == "bidi_component" and proto.bidi_component.id.endswith("lesson_element"):
            return proto.bidi_component.id, fragment
    raise AssertionError("no lesson element drawn")


async def press(port: int, presses: list) -> list[tuple[str, str]]:
    """Open decay with the lesson (step 1) and send each press's ``step`` trigger, a full run after each; per press:
    the step and dim in the address after it."""
    client = StreamlitClient(port, timeout=120)
    await client.connect()
    client.query_string = "lesson=" + encode_link(LESSON)
    shown = []
    try:
        page = (await client.rerun()).pages["decay"]
        run = await client.rerun(page)
        for sent in presses:
            element_id, fragment = lesson_element(run)
            events = json.dumps([{"event": "step", "value": sent}])
            pressed = await client.rerun(page, {}, fragment, {f"$$STREAMLIT_INTERNAL_KEY_{element_id}__events": events})
            run = await client.rerun(page)
            assert pressed.errors == run.errors == []
            query = parse_qs(client.query_string)
            shown.append((query["step"][0], query["dim"][0]))
    finally:
        await client.close()
    return shown


@pytest.mark.browser  # a real server and its websocket
def test_each_press_moves_one_step_and_a_delivered_again_or_forged_one_moves_none():
    presses = [
        {"by": 1, "at": 1000},
        {"by": 1, "at": 1000},  # the same press delivered again
        {"by": 1, "at": 2000},
        {"by": -1, "at": 3000},
        {"by": 1},  # no stamp
        {"by": 2, "at": 4000},  # not one step
        {"by": 1, "at": "5000"},  # not a stamp
        {"by": 1, "at": 6000},
    ]
    # (its own thread: apart from the browser tests' event loop)
    with StreamlitServer(startup_timeout=240) as server, concurrent.futures.ThreadPoolExecutor(1) as pool:
        shown = pool.submit(asyncio.run, press(server.port, presses)).result()
    dims = {str(index + 1): str(step.settings["dim"]) for index, step in enumerate(LESSON)}
    steps = ["2", "2", "3", "2", "2", "2", "2", "3"]
    assert shown == [(step, dims[step]) for step in steps]
