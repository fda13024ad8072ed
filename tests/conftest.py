"""Fixtures for Streamlit AppTest runs of the app and helpers to read the Plotly figures a page sent."""

from __future__ import annotations

import ast
import base64
import functools
import importlib.util
import json
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from ui.component_data import sent_data, sent_size
from ui.once import clear_computed

ROOT = Path(__file__).resolve().parents[1]


def _scan_installed_components_once() -> None:
    """Every new AppTest starts a fresh runtime, and each runtime scans the metadata of every installed package for
    Streamlit component manifests: 85 ms with the test dependencies installed, most of a page test's time. The
    packages do not change during a test run, so the scan runs once per process. (A Streamlit module path, used by
    the tests only: if it moves, the suite is slower, not wrong.)"""
    try:
        from streamlit.components.v2 import manifest_scanner
    except ImportError:
        return
    if not hasattr(manifest_scanner.scan_component_manifests, "cache_info"):
        manifest_scanner.scan_component_manifests = functools.cache(manifest_scanner.scan_component_manifests)


_scan_installed_components_once()
PAGE_FILES = sorted(str(path.relative_to(ROOT)) for path in (ROOT / "pages").glob("*.py"))
BROWSER_TESTS = Path(__file__).resolve().parent / "browser"


def pytest_collection_modifyitems(items):
    """Every test in tests/browser/ drives Chromium against a real server: mark it ``browser`` (tests elsewhere that
    start servers or nginx carry the mark themselves)."""
    for item in items:
        if item.path.is_relative_to(BROWSER_TESTS):
            item.add_marker(pytest.mark.browser)


@pytest.fixture(autouse=True)
def _fresh_streamlit_caches():
    """st.cache_data outlives an AppTest: clear it so one test's results never feed another; so do the pages'
    memos (charts/: ui.once.computed_once)."""
    st.cache_data.clear()
    st.cache_resource.clear()
    clear_computed("charts.")
    yield


@pytest.fixture
def one_torch_thread():
    """Torch on one thread for the test (as the server runs it): tiny models are fastest so, a busy machine cannot
    slow them with threads waiting on threads, and equal tokens stay bit-for-bit equal."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture
def open_page():
    """open_page("pages/x.py", query={...}, state={...}) -> AppTest that has run the app and switched to the page."""

    def _open(path: str = "pages/home.py", query=None, state=None, timeout: float = 60) -> AppTest:
        at = AppTest.from_file(str(ROOT / "navigation.py"), default_timeout=timeout)
        for key, value in (query or {}).items():
            at.query_params[key] = value
        for key, value in (state or {}).items():
            at.session_state[key] = value
        at.run()
        if path != "pages/home.py":
            at.switch_page(path).run()
        return at

    return _open


def set_shared(at: AppTest, **values) -> AppTest:
    """Commit shared values (base, dim, length, heads) as the sidebar's browser sliders do on release, and run: they
    pass the same validation (``ui.shared.commit_shared_values``) before the page sees them."""
    at.session_state["shared_commit"] = values
    return at.run()


class _TableReader(HTMLParser):
    """Reads the cells of one table's HTML back: header cells, body rows, and whether a body row starts with a
    ``<th scope="row">``."""

    def __init__(self) -> None:
        super().__init__()
        self.columns, self.rows, self.row_headers = [], [], False
        self._part, self._cell = None, None

    def handle_starttag(self, tag, attrs):
        if tag in ("thead", "tbody"):
            self._part = tag
        elif tag == "tr" and self._part == "tbody":
            self.rows.append([])
        elif tag in ("th", "td"):
            self._cell = []
            if tag == "th" and self._part == "tbody" and dict(attrs).get("scope") == "row" and not self.rows[-1]:
                self.row_headers = True
        elif tag == "br" and self._cell is not None:
            self._cell.append("\n")

    def handle_endtag(self, tag):
        if tag in ("th", "td") and self._cell is not None:
            (self.columns if self._part == "thead" else self.rows[-1]).append("".join(self._cell))
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def tables(at: AppTest) -> list:
    """The tables the last run drew (``ui.table.table``: HTML in a Markdown element), in page order, each read back
    from its HTML as a ``figures.table.Table`` (header, rows of cell text as shown, whether rows have headers)."""
    from figures.table import Table

    drawn = [element.value for element in at.markdown]  # in page order: a words element's after the Markdown's
    drawn += [part["html"] for part in words_parts(at) if part["kind"] == "table"]  # (ui.words: drawn by the browser)
    found = []
    for value in drawn:
        if value.startswith('<div class="posenc-table'):
            reader = _TableReader()
            reader.feed(value)
            found.append(Table.of(reader.columns, reader.rows, reader.row_headers))
    return found


def open_code(at: AppTest) -> AppTest:
    """Open every "show the code" expander of the page (the code is sent only while its expander is open) and rerun,
    as a student's click on each would. Keys come from the expanders themselves (their id ends with the key)."""
    for expander in at.expander:
        key = expander.proto.id.split("-", 2)[-1]
        if key.startswith("show_code:"):
            at.session_state[key] = True
    return at.run()


def element_data(element) -> dict:
    """What a browser element of the last run (a ``components.v2`` element) was sent, as the browser reads it: its
    JSON, unwrapped from the one-element list :func:`ui.component_data.component_data` sends, or unpacked from the
    binary message :func:`ui.component_data.packed_data` sends (typed arrays back in base64)."""
    return sent_data(element.proto)


def figure_elements(at: AppTest) -> list:
    """The figures the last run drew (``ui.figure.figure_chart``: a component), in page order."""
    return [element for element in at.get("bidi_component") if element.proto.component_name.endswith("lab_figure")]


def figures(at: AppTest) -> list[dict]:
    """The figures (Plotly-format JSON dicts, as the browser gets them) that the last run sent, in page order."""
    return [element_data(element)["figure"] for element in figure_elements(at)]


def decode(value) -> np.ndarray:
    """A Plotly data field as numpy: typed arrays arrive as {"dtype", "bdata" (base64), "shape"}."""
    if isinstance(value, dict) and "bdata" in value:
        array = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
        shape = value.get("shape")
        if shape:
            dims = [int(n) for n in str(shape).split(",")] if isinstance(shape, str) else list(shape)
            array = array.reshape(dims)
        return array
    return np.asarray(value)


def figure_by_key(at: AppTest, key: str) -> dict:
    """The figure (as a JSON dict) of the chart drawn with ``figure_chart(..., key=key)``."""
    for element in figure_elements(at):
        if element.proto.id.endswith(f"-{key}"):
            return element_data(element)["figure"]
    raise AssertionError(f"no chart with key {key!r}")


def live_data(at: AppTest, key: str) -> dict:
    """The data a live chart (``ui.live.live_chart(..., key=key)``) was sent, with its arrays decoded to numpy."""
    for element in at.get("bidi_component"):
        if element.proto.id.endswith(key) or key in element.proto.id:
            data = element_data(element)
            data["arrays"] = {name: decode(array) for name, array in data["arrays"].items()}
            return data
    raise AssertionError(f"no live chart with key {key!r}")


def live_picture(data: dict, control: str, value) -> dict[str, np.ndarray]:
    """The arrays a ``slices`` live chart (``ui.live.sliced``) draws with ``control`` at ``value`` and the other
    controls where the server drew them: row ``value`` of each "key@control" table, cut to its length."""
    row = data["controls"][control]["values"].index(value)
    picture = {}
    for key in data["keys"]:
        width = data["widths"][f"{key}@{control}"]
        if isinstance(width, dict):  # the same all along the grid: sent once
            picture[key] = data["arrays"][f"{key}@{control}"]
            continue
        stride = max(width) if isinstance(width, list) else width
        length = width[row] if isinstance(width, list) else width
        picture[key] = data["arrays"][f"{key}@{control}"].reshape(-1, stride)[row, :length]
    return picture


def payload_bytes(at: AppTest) -> int:
    """Bytes of figure JSON the last run sent: the figure data a rerun costs the network."""
    return sum(sent_size(element.proto) for element in figure_elements(at))


def written_source(module_name: str, qualname: str) -> str:
    """The lines of ``module_name``'s file that define ``qualname`` (a function or class, or ``Class.method``),
    decorators included, found with ``ast`` in the file's text: an independent reference for "show the code", which
    reads sources with ``inspect``."""
    text = Path(importlib.util.find_spec(module_name).origin).read_text(encoding="utf-8")
    body, node = ast.parse(text).body, None
    for name in qualname.split("."):
        definitions = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
        node = next(child for child in body if isinstance(child, definitions) and child.name == name)
        body = node.body
    first = min([node.lineno, *(decorator.lineno for decorator in node.decorator_list)])
    return "".join(text.splitlines(keepends=True)[first - 1 : node.end_lineno])


# The shipped results of "Train short, test long" (assets/toy/), read once for every test module that checks them.
@pytest.fixture(scope="session")
def markov() -> dict:
    """assets/toy/extrapolation.json: the Markov task, every encoding and extension, every seed."""
    from posenc.toy.model import ASSETS

    return json.loads((ASSETS / "extrapolation.json").read_text())


@pytest.fixture(scope="session")
def needle() -> dict:
    """assets/toy/retrieval.json: the needle task, every seed."""
    from posenc.toy.model import ASSETS

    return json.loads((ASSETS / "retrieval.json").read_text())


@pytest.fixture(scope="session")
def ablations() -> dict:
    """assets/toy/ablations.json: each explanation's ablation, every seed."""
    from posenc.toy.model import ASSETS

    return json.loads((ASSETS / "ablations.json").read_text())


def words_parts(at: AppTest) -> list[dict]:
    """The parts of every words element (``ui.words``: what the browser draws, a notice or a question) the last run
    sent, in page order, each as sent."""
    parts = []
    for element in at.get("bidi_component"):
        if element.proto.component_name.endswith("lab_words"):
            parts += element_data(element)["parts"]
    return parts


def words_question(at: AppTest, key: str) -> dict | None:
    """The question ``key`` as the browser draws it (``ui.words``), or None when it is not one (a classic
    checkpoint, or not on the page)."""
    return next((part for part in words_parts(at) if part["kind"] == "question" and part["key"] == key), None)


def answer_words(at: AppTest, key: str, value) -> AppTest:
    """Pick ``value`` (None: no pick; ``{"pick": i}``: the i-th choice) in the browser-drawn question ``key`` and press
    its button: the answer goes through ``ui.words``'s grading as the browser's Check does. Returns the app after the
    run."""
    from ui.words import ANSWER

    at.session_state[ANSWER] = {key: value}
    return at.run()


def captions(at: AppTest) -> list[str]:
    """Every caption the last run shows: Streamlit's (``st.caption``), then the browser's (``ui.words``)."""
    return [c.value for c in at.caption] + [p["text"] for p in words_parts(at) if p["kind"] == "caption"]


def markdowns(at: AppTest) -> list[str]:
    """Every Markdown paragraph the last run shows: Streamlit's (``st.markdown``) and the browser's (``ui.words``)."""
    return [m.value for m in at.markdown] + [p["text"] for p in words_parts(at) if p["kind"] == "markdown"]


def shown_texts(parts: list[dict]) -> list[str]:
    """Every piece of Markdown words parts hold (:func:`words_parts`): a paragraph; a question, its choices and its
    verdict."""
    texts = []
    for part in parts:
        if part["kind"] == "question":
            texts += [part["question"], *part["choices"]] + ([part["verdict"]["text"]] if part["verdict"] else [])
        elif part["kind"] == "table":  # HTML (ui.table), not Markdown
            continue
        else:
            texts.append(part["text"])
    return texts
