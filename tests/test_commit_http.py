"""A shared-control commit over HTTP (ui/commit_http.py): on a real server, the words it answers with are the words a
full run at the committed values draws, and the values are stored as a link's are; a commit that must rerun a
fragment is answered "on the page" and stores nothing, so the browser commits through the sidebar instead. Forged,
malformed or oversized requests get one short JSON error and store nothing (Starlette's TestClient, no session)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import json

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

from bench.protocol import StreamlitClient, http_request
from bench.server import StreamlitServer
from tests.test_words import words_element
from ui.commit_http import MAX_BODY, ROUTES
from ui.component_data import sent_data, unpacked
from ui.limits import LIMITS


@pytest.fixture
def client():
    return TestClient(Starlette(routes=ROUTES), raise_server_exceptions=False)


def post(client, body, content_type="application/json"):
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    return client.post("/shared/commit", content=raw, headers={"Content-Type": content_type})


@pytest.mark.parametrize(
    "body",
    [b"not json", b"[1, 2]", {"tab": 7, "values": {}}, {"tab": "x", "values": {}, "extra": 1}, {"values": {}}],
)
def test_a_malformed_commit_gets_a_400(client, body):
    answer = post(client, body)
    assert answer.status_code == 400 and answer.json() == {"error": "not JSON" if body == b"not json" else "bad commit"}


def test_a_commit_that_is_not_json_by_its_type_or_too_large_is_refused(client):
    assert post(client, {"tab": "x"}, "text/plain").status_code == 415
    assert post(client, {"tab": "x", "values": {"dim": 64}, "near": ["a" * MAX_BODY]}).status_code == 413


def test_a_tab_the_server_does_not_know_gets_a_409(client):
    answer = post(client, {"tab": "no-such-tab", "values": {"dim": 64}, "seq": 1})
    assert answer.status_code == 409 and "traceback" not in answer.text.lower()


def test_a_route_outside_the_pages_folder_is_not_found(client):
    answer = client.post("/xshared/commit", content=b"{}", headers={"Content-Type": "application/json"})
    assert answer.status_code == 404


def json_answer(answer) -> bool:
    """Whether the route answered JSON (an error, or "commit on the page"), not the packed sidebar data."""
    return any(value.startswith("application/json") for value in answer.header_values("content-type"))


@pytest.fixture(scope="module")
def server():
    with StreamlitServer(startup_timeout=240) as running:
        yield running


def run(coroutine):
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


async def commit(port: int, page_name: str, values: dict, near_all: bool = True):
    """Open ``page_name``, commit ``values`` over HTTP naming every section as near (or none), then run the page
    again: (the HTTP status, what it answered, the sidebar's values before and after, the full run after)."""
    client = StreamlitClient(port, timeout=120)
    await client.connect()
    try:
        page = (await client.rerun()).pages[page_name]
        before = await client.rerun(page)
        sidebar = next(live for live in before.lives.values() if live.event == "commit")
        assert sidebar.tab, "the sidebar sends the tab its token"
        body = {"tab": sidebar.tab, "values": sidebar.server | values, "seq": 3}
        body["near"] = list(before.sections) if near_all else []
        headers = {"Content-Type": "application/json"}
        answer = await http_request(port, "POST", "/shared/commit", headers, json.dumps(body).encode(), 60)
        after = await client.rerun(page)
        sidebar_after = next(live for live in after.lives.values() if live.event == "commit")
        data = json.loads(answer.body) if json_answer(answer) else unpacked(answer.body)
        return answer.status, data, sidebar.server, sidebar_after.server, after
    finally:
        await client.close()


@pytest.mark.browser  # a real server and its websocket
def test_a_commit_over_http_answers_the_words_a_full_run_at_its_values_draws(server):
    status, data, before, stored, after = run(commit(server.port, "decay", {"dim": 96, "base": 500000}))
    assert status == 200 and "commit" not in data, data
    assert before["dim"] != 96 and stored["dim"] == 96 and stored["base"] == 500000
    assert data["values"] == stored and data["seq"] == 3
    said = {words["key"]: words for words in data["said"]}
    question = next(part for part in said["decay_half_question"]["parts"] if part["kind"] == "question")
    drawn = words_element(after, "cp_decay_half")[2]  # the full run at the stored values: the reference
    shown = ("question", "choices", "asked")
    assert {k: question[k] for k in shown} == {k: drawn[k] for k in shown}
    assert not after.errors


@pytest.mark.browser
def test_a_commit_that_must_rerun_a_fragment_is_refused_and_stores_nothing(server):
    # sinusoidal's "why not 0, 1, 2" section is drawn whole for a new dim (its live chart's arrays)
    status, data, before, stored, _ = run(commit(server.port, "sinusoidal", {"dim": 96}))
    assert status == 200 and data["commit"] == "on the page"
    assert "dim" in data["rerun_for"]["sin_naive"]  # what the browser then commits through the sidebar
    assert stored == before


@pytest.mark.browser
def test_a_commit_over_http_validates_the_values_as_a_link_does(server):
    status, data, before, stored, _ = run(commit(server.port, "decay", {"dim": 10**9, "base": "1e4"}, near_all=False))
    assert status == 200 and "commit" not in data, data
    assert stored["dim"] == LIMITS.dim_max and stored["base"] == before["base"]  # clamped; a string is dropped


async def walk_sections(port: int, page_name: str) -> list:
    """On ``page_name``, commit a new value of each shared control naming one section at a time as near; per commit:
    (section, name, whether the sidebar's ``rerun_for`` says it reruns a fragment, the HTTP status)."""
    client = StreamlitClient(port, timeout=120)
    await client.connect()
    out = []
    try:
        page = (await client.rerun()).pages[page_name]
        first = await client.rerun(page)
        sidebar = next(live for live in first.lives.values() if live.event == "commit")
        # a full run draws the sidebar before the sections: its rerun_for is known from the first commit's answer
        body = {"tab": sidebar.tab, "values": sidebar.server, "seq": 1, "near": []}
        headers = {"Content-Type": "application/json"}
        answer = await http_request(port, "POST", "/shared/commit", headers, json.dumps(body).encode(), 60)
        rerun_for, values, seq = unpacked(answer.body)["rerun_for"], dict(sidebar.server), 1
        for key in first.sections:
            for name, spec in sidebar.controls.items():
                grid = spec.get("values") or [spec["min"], spec["min"] + spec.get("step", 1)]
                value = next(v for v in grid if v != values[name])
                seq += 1
                body = {"tab": sidebar.tab, "values": values | {name: value}, "seq": seq, "near": [key]}
                headers = {"Content-Type": "application/json"}
                answer = await http_request(port, "POST", "/shared/commit", headers, json.dumps(body).encode(), 60)
                refused = json_answer(answer)  # {"commit": "on the page", …}
                out.append((key, name, name in rerun_for.get(key, ()), 409 if refused else answer.status))
                if not refused:
                    data = unpacked(answer.body)
                    rerun_for, values = data["rerun_for"], data["values"]
    finally:
        await client.close()
    return out


@pytest.mark.browser
@pytest.mark.parametrize("page", ["sinusoidal", "rope", "rope_practice", "relative", "relative_scores", "decay"])
def test_the_sidebar_tells_the_browser_which_commits_rerun_a_fragment(server, page):
    walked = run(walk_sections(server.port, page))
    assert len(walked) >= 4
    for key, name, said, status in walked:  # the server's own plan decides ("409": it answered "on the page")
        assert status == (409 if said else 200), (key, name, said, status)
    assert any(status == 200 for *_, status in walked) or page == "sinusoidal"


def test_the_contexts_of_closed_sessions_are_dropped_as_tokens_accumulate(monkeypatch):
    import types

    import ui.commit_http as route

    open_sessions = {f"s{k}" for k in range(0, 400, 2)}  # every other session still connected
    runtime = types.SimpleNamespace(is_active_session=lambda session_id: session_id in open_sessions)
    monkeypatch.setattr(route, "Runtime", types.SimpleNamespace(exists=lambda: True, instance=lambda: runtime))
    monkeypatch.setattr(route, "_TABS", route.OrderedDict())
    monkeypatch.setattr(route, "_prune_at", route.PRUNE_FROM)
    for k in range(400):
        ctx = types.SimpleNamespace(session_id=f"s{k}")
        monkeypatch.setattr(route, "get_script_run_ctx", lambda suppress_warning=False, ctx=ctx: ctx)
        route.register_tab(f"t{k}")
    kept = {ctx.session_id for ctx in route._TABS.values()}
    assert {f"s{k}" for k in range(0, 257, 2)} <= kept  # every open one is kept
    assert not {f"s{k}" for k in range(1, 257, 2)} & kept  # the closed ones of the first 257 were dropped
    assert route._session_context("t1") is None and route._session_context("t2").session_id == "s2"


async def commit_then_ask_for_the_rest(port: int, page_name: str, values: dict):
    """Commit ``values`` over HTTP naming only the page's first section, ask for every section it left stale over
    HTTP as a scroll does, then run the page: (the commit's answer, the ask's, the words each element shows in the
    full run after, by key)."""
    from streamlit.proto.Element_pb2 import Element

    client = StreamlitClient(port, timeout=120)
    await client.connect()
    headers = {"Content-Type": "application/json"}
    try:
        page = (await client.rerun()).pages[page_name]
        before = await client.rerun(page)
        sidebar = next(live for live in before.lives.values() if live.event == "commit")
        body = {"tab": sidebar.tab, "values": sidebar.server | values, "seq": 1, "near": list(before.sections)[:1]}
        first = await http_request(port, "POST", "/shared/commit", headers, json.dumps(body).encode(), 60)
        committed = unpacked(first.body)
        body = {"tab": sidebar.tab, "refresh": committed["stale"]}
        second = await http_request(port, "POST", "/shared/commit", headers, json.dumps(body).encode(), 60)
        after = await client.rerun(page)
    finally:
        await client.close()
    shown = {}
    for _, element in after.drawn:
        proto = Element.FromString(element)
        if proto.WhichOneof("type") == "bidi_component" and proto.bidi_component.component_name.endswith("lab_words"):
            data = sent_data(proto.bidi_component)
            shown[data["key"]] = data["parts"]
    return committed, unpacked(second.body), shown


@pytest.mark.browser
def test_stale_sections_asked_for_over_http_get_the_words_a_full_run_draws(server):
    committed, asked, shown = run(commit_then_ask_for_the_rest(server.port, "rope", {"dim": 96}))
    assert committed["stale"], "the commit left the sections out of sight stale"
    assert asked["stale"] == [] and asked["values"]["dim"] == 96
    said = {words["key"]: words["parts"] for words in asked["said"] if "parts" in words}
    assert said, "the sections asked for quote the dim"
    for key, parts in said.items():
        assert shown[key] == parts, key  # what a full run at the stored dim draws
