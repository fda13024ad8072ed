"""A commit of the shared controls reruns only the sections that use what changed, and they are all that changes.

Against a real ``streamlit run app.py`` over its websocket (``bench.protocol``, as a browser speaks it): on every
page with shared controls, each shared value is committed as the sidebar's browser slider commits it on release
(``ui.shared``). The commit must be a fragment run, not the page's. Then a full run at the new value shows what the
page looks like now: every element that differs from before the commit must be one the commit redrew, in a section
it reran, and drawn the same as the full run draws it. So no picture, notice or checkpoint is left stale by a
section whose ``uses`` missed a value, and a value no section uses reruns only the sidebar.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
from collections import Counter
from pathlib import Path

import pytest
from streamlit.proto.Element_pb2 import Element

from bench.protocol import StreamlitClient, whole_data
from bench.server import StreamlitServer
from ui.component_data import sent_data

ROOT = Path(__file__).resolve().parents[1]
PAGES = {  # url path -> the shared controls its sidebar shows
    "sinusoidal": ("base", "dim", "length"),
    "relative": ("length", "heads"),
    "rope": ("base", "dim"),
    "rope_practice": ("base", "dim"),
    "decay": ("base", "dim"),
    "inference": ("base", "dim"),
    "relative_scores": ("base", "dim", "length"),
}
NEW = {"base": 500.0, "dim": 64, "length": 100, "heads": 3}  # each away from its default, on every live grid
OFF_GRID_DIM = 126  # a dim on the sidebar's grid, on no live dim grid (ui.live.LIVE_DIMS)


def as_drawn(element: bytes) -> bytes:
    """An element as the student sees it. A figure that follows the store is compared by what it follows (its view,
    data and values), not by the server's figure: a commit's rerun sends only that (``keep``, ui/figure.py), and the
    browser's view redraws it to the figure the server would build there (tests/test_figure_follow.py). A live chart
    is compared by its data with its arrays (:func:`with_held_parts` puts back what a rerun kept)."""
    proto = Element.FromString(element)
    if proto.WhichOneof("type") != "bidi_component" or proto.bidi_component.WhichOneof("data") is None:
        return element
    data = sent_data(proto.bidi_component)
    if proto.bidi_component.component_name.endswith("lab_words"):  # by its words, not by when they were computed
        proto.bidi_component.json = json.dumps({k: v for k, v in data.items() if k != "version"}, sort_keys=True)
        return proto.SerializeToString()
    if isinstance(data, dict) and ("data_id" in data or "kept" in data):  # a live chart or the sidebar (kept_parts)
        data = {k: v for k, v in data.items() if k not in KEPT_KEYS}
        if "view" in data:  # a live chart draws at the store's values of those it follows (tests/live_views.py)
            followed = {*data.get("follows", {}), *(data.get("shared") or ())}
            if data.get("picture") == "clocks":  # static/views/rope.js sizes the dials' rows for the dim it draws
                data.pop("height", None)
            data["follows"] = sorted(data.get("follows", {}))
            data["server"] = {k: v for k, v in data.get("server", {}).items() if k not in followed}
        proto.bidi_component.json = json.dumps(data, sort_keys=True)
        return proto.SerializeToString()
    if not isinstance(data, dict) or ("figure" not in data and "keep" not in data):
        return element
    if "follow" not in data:  # a server figure: by its JSON (packed, or with kept arrays put back)
        data.pop("said", None)  # a figure a commit builds (ui.figure.figure_part): not by when it was built
        proto.bidi_component.json = json.dumps(data, sort_keys=True)
        return proto.SerializeToString()
    data = {k: v for k, v in data.items() if k not in ("figure", "keep", "prints")}  # the server's figure, unread
    data["follow"] = data["follow"] | {"follows": sorted(data["follow"].get("follows", {}))}  # drawn at the store's
    proto.bidi_component.json = json.dumps(data, sort_keys=True)
    return proto.SerializeToString()


KEPT_KEYS = ("data_id", "kept", "said")  # "said": a commit's words, drawn by their own elements (with_said)


def with_said(run, earlier: list, problems: list[str]) -> list[tuple[str, bytes]]:
    """The words elements (ui.words) and figures (ui.figure.figure_part) that a run's sidebar sent words or pictures for
    (``said``), as the browser then draws them: the element last drawn in the ``earlier`` runs, with those words or
    that figure's data; in the fragment that drew it."""
    said = {}
    for _, element in run.drawn:
        proto = Element.FromString(element)
        if proto.WhichOneof("type") == "bidi_component" and proto.bidi_component.id.endswith("shared_controls"):
            said |= {words["key"]: words for words in (sent_data(proto.bidi_component) or {}).get("said", [])}
    drawn = {}
    for fragment, element in (pair for earlier_run in earlier for pair in earlier_run.drawn):
        proto = Element.FromString(element)
        if proto.WhichOneof("type") == "bidi_component" and proto.bidi_component.component_name.endswith("lab_words"):
            key = sent_data(proto.bidi_component)["key"]
            if key in said:
                proto.bidi_component.json = json.dumps([said[key]])
                drawn[key] = (fragment, proto.SerializeToString())
        elif proto.WhichOneof("type") == "bidi_component" and proto.bidi_component.component_name.endswith("figure"):
            earlier_data = sent_data(proto.bidi_component) or {}
            key = (earlier_data.get("said") or {}).get("key")
            if key in said:  # the arrays it holds put back, as static/figure.js does
                held = dict(figure_arrays(earlier_data.get("figure", {})))
                data = said[key]["data"] | {"figure": with_held_arrays(said[key]["data"]["figure"], held, problems)}
                proto.bidi_component.json = json.dumps(data | {"said": said[key]})
                drawn[key] = (fragment, proto.SerializeToString())
    return list(drawn.values())


def with_held_parts(drawn: list[tuple[str, bytes]], earlier: list, problems: list[str]) -> list[tuple[str, bytes]]:
    """The elements of a run (:func:`as_drawn`) as the browser draws them: an element sent only where its sliders
    stand (``kept``: ui/component_data.py kept_parts) drawn with the rest its element was last sent in the ``earlier``
    runs (oldest first), merged as the browser merges it (bench.protocol ``whole_data``), and a figure's kept arrays
    (ui/figure.py with_arrays_kept) put back as static/figure.js puts them; a ``kept`` that names another part or
    array than those is a problem."""
    held: dict = {}
    arrays: dict = {}  # a figure's id -> its arrays by print, as last sent
    for run in earlier:
        for _, element in run.drawn:
            proto = Element.FromString(element)
            if proto.WhichOneof("type") == "bidi_component" and proto.bidi_component.WhichOneof("data"):
                data = sent_data(proto.bidi_component)
                whole_data(proto.bidi_component.id, data, held)
                if isinstance(data, dict) and "figure" in data:
                    arrays[proto.bidi_component.id] = dict(figure_arrays(data["figure"]))
    out = []
    for fragment, element in drawn:
        proto = Element.FromString(element)
        data = sent_data(proto.bidi_component) if proto.WhichOneof("type") == "bidi_component" else None
        if isinstance(data, dict) and "figure" in data and '"kept"' in json.dumps(data["figure"]):
            last = arrays.get(proto.bidi_component.id, {})  # a figure's unchanged arrays: the browser puts them back
            whole = with_held_arrays(data["figure"], last, problems)
            proto.bidi_component.json = json.dumps(data | {"figure": whole})
            element = proto.SerializeToString()
        elif isinstance(data, dict) and "kept" in data:
            merged = whole_data(proto.bidi_component.id, data, held)
            if merged is None:
                problems.append(f"{proto.bidi_component.id} kept a part it was not sent")
            proto.bidi_component.json = json.dumps(merged or data)
            element = proto.SerializeToString()
        out.append((fragment, element))
    return out


def figure_arrays(value):
    """(print, spec) of every typed array of a figure as sent (figures.common.with_array_prints)."""
    if isinstance(value, dict):
        if "print" in value:
            yield value["print"], value
        for item in value.values():
            yield from figure_arrays(item)
    elif isinstance(value, list):
        for item in value:
            yield from figure_arrays(item)


def with_held_arrays(value, held: dict, problems: list[str]):
    """A figure with each ``{"kept": print}`` put back from ``held`` (print -> spec), as static/figure.js does."""
    if isinstance(value, dict):
        if set(value) == {"kept"}:
            if value["kept"] not in held:
                problems.append(f"a figure kept an array it was not sent ({value['kept']})")
            return held.get(value["kept"], value)
        return {key: with_held_arrays(item, held, problems) for key, item in value.items()}
    return [with_held_arrays(item, held, problems) for item in value] if isinstance(value, list) else value


def by_fragment(drawn: list[tuple[str, bytes]]) -> dict[str, Counter]:
    """The elements of a run (:func:`as_drawn`), grouped by the fragment that drew them ("" for the page itself)."""
    groups: dict[str, Counter] = {}
    for fragment, element in drawn:
        groups.setdefault(fragment, Counter())[as_drawn(element)] += 1
    return groups


def unexplained_changes(before, redrawn: dict[str, Counter], after, where: str) -> list[str]:
    """Every fragment a full run draws differently from ``before`` must be one the reruns ``redrawn`` (fragment ->
    its elements) drew, and drawn as the full run ``after`` draws it."""
    problems = []
    old, new = by_fragment(before.drawn), by_fragment(after.drawn)
    for fragment in old.keys() | new.keys():
        if old.get(fragment) == new.get(fragment):
            continue
        named = f"fragment {fragment}" if fragment else "the page outside every section"
        if fragment not in redrawn:
            problems.append(f"{where}: {named} changed but no rerun drew it")
        elif redrawn[fragment] != new.get(fragment):
            problems.append(f"{where}: {named} as rerun differs from a full run's")
    return problems


async def commit_and_compare(port: int, path: str, name: str, value: float | None = None) -> list[str]:
    """Commit ``name`` (at ``value``, else NEW's) on page ``path``; the problems found (none when the commit reran
    exactly what changed)."""
    value = NEW[name] if value is None else value
    client = StreamlitClient(port, timeout=120)
    await client.connect()
    try:
        page = (await client.rerun()).pages[path]
        before = await client.rerun(page)
        sidebar = next(live for live in before.lives.values() if live.event == "commit")
        commit = await client.rerun(page, {}, sidebar.fragment_id, {sidebar.trigger_id: sidebar.payload({name: value})})
        after = await client.rerun(page)
    finally:
        await client.close()
    problems = [f"{path} {name}: {error}" for error in before.errors + commit.errors + after.errors]
    if not commit.fragment_run:
        problems.append(f"{path} {name}: the commit reran the whole page")
    redrawn = by_fragment(with_held_parts(commit.drawn, [before], problems)) | by_fragment(
        with_said(commit, [before], problems)
    )
    problems += unexplained_changes(before, redrawn, after, f"{path} {name}")
    if name not in PAGES[path] and set(redrawn) - {sidebar.fragment_id}:
        problems.append(f"{path} {name}: a value the page does not show reran {sorted(set(redrawn))}")
    return problems


@pytest.fixture(scope="module")
def server():
    with StreamlitServer(startup_timeout=240) as running:
        yield running


@pytest.mark.browser  # a real server and its websocket
@pytest.mark.parametrize("path", PAGES)
def test_a_commit_reruns_only_the_sections_that_use_it(server, path):
    problems = []
    # heads on the RoPE pages: a value the page does not show; a dim off every live dim grid (ui.live.LIVE_DIMS): a
    # live chart whose dim slider moves over that grid and the current dim is drawn anew
    for name, value in [*((name, None) for name in NEW), ("dim", OFF_GRID_DIM)]:
        # in a thread of its own: Playwright's tests may keep an event loop running in this one
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            problems += pool.submit(asyncio.run, commit_and_compare(server.port, path, name, value)).result()
    assert not problems, "\n".join(problems)


async def commit_near_then_refresh(port: int, path: str, name: str) -> list[str]:
    """Commit ``name`` on page ``path`` naming only the first section as near the viewport, then ask for every
    section the sidebar lists as stale, as static/sections.js does when they come near; the problems found."""
    client = StreamlitClient(port, timeout=120)
    await client.connect()
    try:
        page = (await client.rerun()).pages[path]
        before = await client.rerun(page)
        sidebar = next(live for live in before.lives.values() if live.event == "commit")
        first = next(iter(before.sections))
        commit = await client.rerun(
            page, {}, sidebar.fragment_id, {sidebar.trigger_id: sidebar.payload({name: NEW[name]}, near=[first])}
        )
        stale = next(live for live in commit.lives.values() if live.event == "commit").stale
        refresh = await client.rerun(page, {}, sidebar.fragment_id, {sidebar.trigger_id: sidebar.refresh(list(stale))})
        after_refresh = next(live for live in refresh.lives.values() if live.event == "commit").stale
        after = await client.rerun(page)
    finally:
        await client.close()
    where = f"{path} {name}"
    problems = [f"{where}: {error}" for error in before.errors + commit.errors + refresh.errors + after.errors]
    if not commit.fragment_run or not refresh.fragment_run:
        problems.append(f"{where}: the commit or the refresh reran the whole page")
    fragment_of = before.sections
    others = {fragment_of[key] for key in fragment_of if key != first}
    if reran := others & set(by_fragment(commit.drawn)):
        problems.append(f"{where}: the commit reran sections not named near: {sorted(reran)}")
    if first in stale or not set(stale) <= set(fragment_of):
        problems.append(f"{where}: stale {stale} names the near section or one the page does not have")
    if after_refresh:
        problems.append(f"{where}: still stale after the refresh: {after_refresh}")
    if set(by_fragment(refresh.drawn)) & set(fragment_of.values()) - {fragment_of[key] for key in stale}:
        problems.append(f"{where}: the refresh reran sections that were not stale")
    held = by_fragment(with_held_parts(commit.drawn, [before], problems)) | by_fragment(
        with_said(commit, [before], problems)
    )
    held |= by_fragment(with_held_parts(refresh.drawn, [before, commit], problems))
    held |= by_fragment(with_said(refresh, [before, commit], problems))
    problems += unexplained_changes(before, held, after, where)
    return problems


@pytest.mark.browser  # a real server and its websocket
@pytest.mark.parametrize("path", PAGES)
def test_sections_out_of_sight_wait_until_asked_for(server, path):
    problems = []
    for name in PAGES[path]:
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            problems += pool.submit(asyncio.run, commit_near_then_refresh(server.port, path, name)).result()
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(
    "sent",
    [None, "sin_table", {"sin_table": 1}, [1, 2], ["sin_table", None], ["x"] * 65, [["sin_table"]]],
)
def test_a_malformed_list_of_near_sections_names_none(sent):
    from ui.sections import named_sections

    assert named_sections(sent) is None  # read as naming none: every section that uses the value reruns


def test_near_sections_are_read_as_sent():
    from ui.sections import named_sections

    assert named_sections([]) == set()
    assert named_sections(["sin_table", "sin_waves", "sin_table"]) == {"sin_table", "sin_waves"}


def _follow_script():
    """Four sections, three of them using dim; the button stands for a following class's poll (ui/follow.py's
    ``_polled``): dim changed, sections a, b and d within a screen of the viewport, only a in it. ``st.rerun`` is
    recorded, not done (AppTest reruns no fragment by key): what it was asked to rerun, and the stale and "later"
    sections at that moment. The sections are drawn on the first run only, so the buttons' runs leave them as a
    fragment rerun of others would."""
    import streamlit as st

    from ui import sections

    if "drawn" not in st.session_state:  # drawn once: the button's full reruns stand for the fragments' own
        st.session_state["drawn"] = True
        for key, uses in (("s_a", ("dim",)), ("s_b", ("dim",)), ("s_c", ("dim",)), ("s_d", ("base",))):
            sections.section(key, uses=uses)(lambda dim=0, key=key: st.caption(key))()

    def poll() -> None:
        sections.rerun_sections({"dim"}, near=["s_a", "s_b", "s_d"], visible=["s_a"])

    def refresh() -> None:
        sections.refresh_sections(["s_b"])

    st.button("poll", key="poll", on_click=poll)
    st.button("refresh", key="refresh", on_click=refresh)


def test_a_follow_reruns_the_sections_in_view_and_leaves_those_near_for_later(monkeypatch):
    """``visible``: of the sections that use what changed and are near the viewport, only those in it rerun; the
    others near wait as stale and "later" (the browser asks for them in view, or a little later), those farther as
    stale; a refresh of a later one takes it off both lists."""
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    from ui import sections

    asked = []
    monkeypatch.setattr(st, "rerun", lambda scope=None: asked.append(
        (scope, sections.stale_sections(), sections.later_sections())))  # fmt: skip
    at = AppTest.from_function(_follow_script).run()
    at.button(key="poll").click().run()
    assert asked[-1] == ([sections.SIDEBAR_KEY, "s_a"], ["s_b", "s_c"], ["s_b"])
    at.button(key="refresh").click().run()
    assert asked[-1] == ([sections.SIDEBAR_KEY, "s_b"], ["s_c"], [])


def _parts_script():
    """Three sections: s_a drawn in parts (p_dim reads dim, p_base base), s_b drawn in parts and rerun whole for dim,
    s_c plain. The buttons stand for a commit (dim, then base) naming every section, a commit naming none near, the
    sidebar's commit of a value no section reads, and a refresh; ``st.rerun`` is recorded, not done (see
    :func:`_follow_script`)."""
    import streamlit as st

    from ui import sections

    if "drawn" not in st.session_state:
        st.session_state["drawn"] = True
        p_dim = sections.part("p_dim", uses=("dim",))(lambda dim=0: st.caption(f"dim {dim}"))
        p_base = sections.part("p_base", uses=("base",))(lambda base=0: st.caption(f"base {base}"))
        p_b = sections.part("p_b", uses=("base",))(lambda base=0: st.caption(f"b {base}"))

        def a(dim=0, base=0):
            st.caption("formulas and code")
            p_dim(dim)
            p_base(base)

        def b(dim=0, base=0):
            p_b(base)

        sections.section("s_a", uses=("dim", "base"), whole=())(a)()
        sections.section("s_b", uses=("dim", "base"), whole=("dim",))(b)()
        sections.section("s_c", uses=("dim",))(lambda dim=0: st.caption("c"))()

    everywhere = ["s_a", "s_b", "s_c"]
    st.button("dim", key="dim", on_click=lambda: sections.rerun_sections({"dim"}, near=everywhere))
    st.button("base", key="base", on_click=lambda: sections.rerun_sections({"base"}, near=everywhere))
    st.button("far", key="far", on_click=lambda: sections.rerun_sections({"base"}, near=[]))
    sidebar = sections.SIDEBAR_KEY
    st.button("own", key="own", on_click=lambda: sections.rerun_sections({"heads"}, near=everywhere, default=sidebar))
    st.button("refresh", key="refresh", on_click=lambda: sections.refresh_sections(["s_a", "s_b"]))


def test_a_commit_reruns_the_parts_of_a_section_drawn_in_parts(monkeypatch):
    """A section declared with ``whole`` is rerun by a commit only for a value of ``whole``; for any other, only its
    parts that read it rerun; a plain section as before. A section left stale reruns all its parts when asked for
    (or itself, when it has a ``whole``)."""
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    from ui import sections

    asked = []
    monkeypatch.setattr(st, "rerun", lambda scope=None: asked.append((scope, sections.stale_sections())))
    at = AppTest.from_function(_parts_script).run()
    assert [c.value.split()[0] for c in at.caption] == ["formulas", "dim", "base", "b", "c"]
    at.button(key="dim").click().run()
    assert asked[-1] == ([sections.SIDEBAR_KEY, "p_dim", "s_b", "s_c"], [])
    at.button(key="base").click().run()
    assert asked[-1] == ([sections.SIDEBAR_KEY, "p_base", "p_b"], [])
    at.button(key="far").click().run()
    assert asked[-1] == ([sections.SIDEBAR_KEY], ["s_a", "s_b"])
    at.button(key="own").click().run()  # nothing but the sidebar, whose own rerun the commit is: none asked for
    assert len(asked) == 3
    at.button(key="refresh").click().run()
    scope, stale = asked[-1]  # the order of the keys asked for is the browser's list's, read as a set
    assert scope[0] == sections.SIDEBAR_KEY and sorted(scope[1:]) == ["p_base", "p_dim", "s_b"] and stale == []


def live_sent(run, key: str) -> tuple[dict, int]:
    """The data the live chart ``key`` was sent in ``run`` and its size in bytes."""
    for _, element in run.drawn:
        proto = Element.FromString(element)
        if proto.WhichOneof("type") == "bidi_component" and proto.bidi_component.id.endswith(key):
            return sent_data(proto.bidi_component), len(proto.bidi_component.bytes or proto.bidi_component.json)
    raise AssertionError(f"{key} not drawn")


async def base_commit_keeps_arrays(port: int) -> list:
    """On the RoPE page, commit the base, then let go of the pair chart's m: the base's commit does not draw the pair
    chart at all (its section is drawn in parts: only its numbers and question rerun); m's release reruns the section,
    and the chart's q and k (sent at the largest dim: they depend on the seed alone), grids and words are not sent
    again, only where its sliders stand; an element that asks for them (``missing``) gets them all from the rerun that
    follows."""
    client = StreamlitClient(port, timeout=120)
    await client.connect()
    try:
        page = (await client.rerun()).pages["rope"]
        before = await client.rerun(page)
        sidebar = next(live for live in before.lives.values() if live.event == "commit")
        commit = await client.rerun(
            page, {}, sidebar.fragment_id, {sidebar.trigger_id: sidebar.payload({"base": NEW["base"]})}
        )
        assert not any(live.element_id.endswith("rope_pair_live") for live in commit.lives.values())
        pair = next(live for live in before.lives.values() if live.element_id.endswith("rope_pair_live"))
        moved = {"m": 7, "base": NEW["base"]}  # the chart's base is the shared one, now the committed value
        moved = await client.rerun(page, {}, pair.fragment_id, {pair.trigger_id: pair.payload(moved)})
        missing = json.dumps([{"event": "missing", "value": 1}])
        asked = await client.rerun(page, {}, pair.fragment_id, {pair.trigger_id: missing})
    finally:
        await client.close()
    pair = [live_sent(run, "rope_pair_live") for run in (before, moved, asked)]
    return pair + [live_sent(run, "shared_controls") for run in (before, commit)]


@pytest.mark.browser  # a real server and its websocket
def test_a_commit_does_not_resend_what_a_live_chart_or_the_sidebar_holds(server):
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        sent = pool.submit(asyncio.run, base_commit_keeps_arrays(server.port)).result()
    (full, full_bytes), (moved, moved_bytes), (asked, _), (sidebar, _), (sidebar_commit, _) = sent
    assert set(full["arrays"]) == {"q", "k"} and "kept" not in full
    assert moved["kept"] == full["data_id"] and set(moved) == {"kept", "server", "follows"}  # follows: the dim
    assert moved["server"]["m"] == 7 and moved["server"]["base"] == NEW["base"]  # drawn at the committed base
    assert moved_bytes < 300 < full_bytes, (moved_bytes, full_bytes)
    assert asked["arrays"] == full["arrays"] and asked["controls"] == full["controls"] and "kept" not in asked
    # the sidebar's labels, help and grids are not sent again either: only the values, the commit's number, what is
    # stale (and of it "later")
    every_run = {"kept", "values", "seq", "stale", "later", "said"}
    assert sidebar_commit["kept"] == sidebar["data_id"] and set(sidebar_commit) <= every_run
    assert sidebar_commit["values"]["base"] == NEW["base"] and sidebar["values"]["base"] != NEW["base"]


def test_each_checkpoint_is_drawn_in_the_section_the_menu_says():
    """ui.menu.CHECKPOINT_SECTIONS (what a replica knows before it has run a page) is what the pages draw: each page
    built of sections, run once, notes each of its checkpoints drawn in a section in that section, and no other."""
    from streamlit.testing.v1 import AppTest

    from ui.menu import CHECKPOINT_SECTIONS, CHECKPOINTS
    from ui.sections import SECTION_OF

    known = dict(SECTION_OF)
    SECTION_OF.clear()
    try:
        for path in PAGES:
            AppTest.from_file(str(ROOT / "pages" / f"{path}.py"), default_timeout=120).run()
        noted = dict(SECTION_OF)
    finally:
        SECTION_OF.clear()
        SECTION_OF.update(known)
    assert noted == CHECKPOINT_SECTIONS
    assert set(noted) <= {cp for page in PAGES for cp in CHECKPOINTS.get(page, ())}  # (inference has two outside)


async def deberta_k_release(port: int) -> tuple:
    """On the relative-scores page, let go of DeBERTa's k (at 9): the runs before, of the release, and a full run
    after it."""
    client = StreamlitClient(port, timeout=120)
    await client.connect()
    try:
        page = (await client.rerun()).pages["relative_scores"]
        before = await client.rerun(page)
        live = next(live for live in before.lives.values() if live.element_id.endswith("rs_deberta_live"))
        release = await client.rerun(page, {}, live.fragment_id, {live.trigger_id: live.payload({"k": 9})})
        after = await client.rerun(page)
    finally:
        await client.close()
    return before, release, after


@pytest.mark.browser  # a real server and its websocket
def test_a_figure_built_again_sends_only_the_traces_that_changed(server):
    """DeBERTa's four panels at a new k: c2c (content to content) reads no k, so its array is kept (sent as its
    print) though its colour range moves, and the figure put back together is the one a full run draws at that k."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        before, release, after = pool.submit(asyncio.run, deberta_k_release(server.port)).result()
    (first, _), (sent, sent_bytes), (full, full_bytes) = (live_sent(run, "rs_deberta_terms") for run in
                                                          (before, release, after))  # fmt: skip
    c2c = first["figure"]["data"][0]["z"]["print"]
    assert sent["figure"]["data"][0]["z"] == {"kept": c2c} and full["figure"]["data"][0]["z"]["print"] == c2c
    assert all("bdata" in trace["z"] for trace in sent["figure"]["data"][1:])  # c2p, p2c and the sum: new
    assert sent_bytes < full_bytes - 8000, (sent_bytes, full_bytes)  # a 48 × 48 float32 panel is 9,216 bytes
    problems: list[str] = []
    (_, element), *_ = [e for e in with_held_parts(release.drawn, [before], problems) if b"rs_deberta_terms" in e[1]]
    put_back = sent_data(Element.FromString(element).bidi_component)
    assert not problems and put_back["figure"] == full["figure"]
