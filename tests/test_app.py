"""The app shell: navigation, shared controls kept across pages, and the URL mirror."""

import importlib
import re

import pytest
from conftest import PAGE_FILES, open_code, set_shared, written_source

from ui.limits import LIMITS


@pytest.mark.parametrize("page", PAGE_FILES)
def test_every_page_renders_without_exception(open_page, page):
    at = open_page(page)
    assert not at.exception, at.exception
    assert at.title, f"{page} has no title"


def test_shared_value_survives_a_page_switch_and_reaches_the_url(open_page):
    at = open_page("pages/sinusoidal.py")
    set_shared(at, dim=32)
    assert at.query_params["dim"] == "32"
    at.switch_page("pages/home.py").run()
    at.switch_page("pages/rope.py").run()
    assert at.session_state["shared_dim"] == 32
    assert at.query_params["dim"] == "32"


def test_a_shared_link_opens_the_same_view(open_page):
    at = open_page("pages/sinusoidal.py", query={"dim": "16", "length": "300", "base": "500000"})
    assert not at.warning
    assert at.session_state["shared_dim"] == 16
    assert at.session_state["shared_length"] == 300
    assert at.session_state["shared_base"] == 500000.0


@pytest.mark.parametrize(
    "query, name, expected",
    [
        ({"dim": "abc"}, "dim", LIMITS.dim_default),
        ({"dim": "7"}, "dim", 8),
        ({"length": "10**9"}, "length", LIMITS.length_default),
        ({"length": "1000000000"}, "length", LIMITS.length_max),
        ({"base": "-1"}, "base", LIMITS.base_default),
        ({"heads": "<script>alert(1)</script>"}, "heads", LIMITS.heads_default),
        ({"dim": "9" * 5000}, "dim", LIMITS.dim_default),
    ],
)
def test_hostile_links_open_with_sane_values_and_a_notice(open_page, query, name, expected):
    at = open_page("pages/home.py", query=query)
    assert not at.exception
    assert len(at.warning) == 1
    assert "<" not in at.warning[0].value and "9999" not in at.warning[0].value  # the visitor's text is not echoed
    assert at.session_state[f"shared_{name}"] == expected
    assert at.query_params[name] == str(int(expected))


def test_a_closed_code_expander_sends_no_code(open_page):
    """The code is sent only once its expander is opened, so a first visit never loads the code highlighter."""
    at = open_page("pages/sinusoidal.py")
    code_boxes = [box for box in at.expander if box.proto.id.split("-", 2)[-1].startswith("show_code:")]
    assert len(code_boxes) >= 7 and not at.code
    assert len(open_code(at).code) == len(code_boxes)


@pytest.mark.parametrize("path", ["pages/rope.py", "pages/sinusoidal.py"])
def test_show_the_code_holds_the_exact_source_of_each_named_function(path, open_page):
    """Each "show the code" block lists functions under a `# module.name` header, followed by that function's source
    as it runs: the header must resolve to a real function and the text after it must be the lines that define it in
    its module's file (found with ast, not with inspect, which the page uses)."""
    blocks = [element.value for element in open_code(open_page(path)).code]
    assert blocks
    for block in blocks:
        parts = re.split(r"^# (\w+(?:\.\w+)+)\n", block, flags=re.M)
        assert parts[0] == "" and len(parts) >= 3, block[:80]
        for name, source in zip(parts[1::2], parts[2::2], strict=True):
            module_name, _, attribute = name.rpartition(".")  # pages show top-level functions and classes
            assert callable(getattr(importlib.import_module(module_name), attribute)), name
            assert source.rstrip("\n") == written_source(module_name, attribute).rstrip("\n"), name
