"""static/follow.js in Node: where a followed page's address is (the app may live under a folder behind a proxy, the
query kept), and which keys the lesson leaves alone (a key meant for a text field, a slider or a radio group, also
inside a component's shadow root, where the document sees only the host), and when the teacher's values are committed
back (only when the follow line's rerun did not store them). The references are written out by hand."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from system_packages import require_system_packages

ROOT = Path(__file__).resolve().parents[1]
NODE = shutil.which("node")


def run_node(script: str) -> object:
    require_system_packages(nodejs=NODE is not None)
    source = f"const follow = await import({json.dumps((ROOT / 'static/follow.js').as_uri() + '?v=test')});\n{script}"
    done = subprocess.run([NODE, "--input-type=module", "-e", source], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize(
    ("pathname", "search", "page", "expected"),
    [
        ("/relative", "?class=K7QF3M&dim=64", "decay", "/decay?class=K7QF3M&dim=64"),
        ("/", "?class=K7QF3M", "rope", "/rope?class=K7QF3M"),
        ("/lab/sinusoidal", "", "", "/lab/"),  # the home page of an app under /lab/
        ("/lab/", "?lesson=abc&step=2", "toy_model", "/lab/toy_model?lesson=abc&step=2"),
    ],
)
def test_a_followed_page_is_opened_beside_this_one_with_the_query_kept(pathname, search, page, expected):
    location = {"pathname": pathname, "search": search}
    found = run_node(f"console.log(JSON.stringify(follow.pageAddress({json.dumps(location)}, {json.dumps(page)})))")
    assert found["href"] == expected


def test_the_lesson_keys_leave_a_focused_control_alone():
    script = """
    const target = (tagName, role = "", editable = false) => ({ tagName, isContentEditable: editable,
      getAttribute: (name) => (name === "role" ? role : null) });
    const event = (real) => ({ target: { tagName: "DIV" }, composedPath: () => [real] });
    const cases = [target("INPUT"), target("TEXTAREA"), target("SELECT"), target("DIV", "slider"),
                   target("DIV", "radio"), target("DIV", "", true), target("BUTTON"), target("DIV"), target("BODY")];
    console.log(JSON.stringify(cases.map((t) => follow.busyTarget(event(t)))));
    """
    assert run_node(script) == [True, True, True, True, True, True, False, False, False]


@pytest.mark.parametrize(
    ("top", "height", "expected"),
    [
        (300, 200, True),
        (-150, 200, True),
        (700, 200, True),
        (-200, 200, False),
        (768, 200, False),
        (2400, 200, False),
        (300, 0, False),
    ],
)
def test_a_box_counts_as_in_view_while_any_of_it_shows(top, height, expected):
    """The box a step brings into view is scrolled back only when none of it shows in a 768-pixel viewport."""
    rect = {"top": top, "bottom": top + height, "height": height}
    assert run_node(f"console.log(JSON.stringify(follow.inView({json.dumps(rect)}, 768)))") is expected


def test_values_the_line_stored_are_set_in_the_store_without_a_commit_back():
    """An order whose values the follow line's rerun stored (``stored``) only sets the tab's store; one without it
    sets the store and commits them back once (the ``commit`` trigger); an order is carried out once."""
    store = json.dumps((ROOT / "static/store.js").as_uri() + "?v=test")  # the instance follow.js shares
    script = f"""
    const store = await import({store});
    const sent = [];
    const send = (name, value) => sent.push([name, value]);
    const heads = [];
    const taken = {{ id: "s-1", values: {{ heads: 12, dim: 128 }}, stored: true }};
    follow.render({{ data: [{{ order: taken }}], setTriggerValue: send }});  // as ui/component_data.py sends it
    heads.push(store.get("heads"), store.get("dim"), sent.length);
    follow.render({{ data: [{{ order: {{ id: "s-2", values: {{ heads: 16 }} }} }}], setTriggerValue: send }});
    follow.render({{ data: [{{ order: {{ id: "s-2", values: {{ heads: 16 }} }} }}], setTriggerValue: send }});
    heads.push(store.get("heads"));
    console.log(JSON.stringify([heads, sent]));
    """
    heads, sent = run_node(script)
    assert heads == [12, 128, 0, 16]
    assert sent == [["commit", {"id": "s-2", "near": None}]]  # no page here: no section named near, so all rerun


def test_asks_for_one_view_that_go_unanswered_end_in_a_run_of_the_whole_page():
    """nextAsk: the follow line's rerun is asked for a view, and again while no rerun drew the line; after
    ASKS_BEFORE_PAGE_RUN unanswered asks for the same view the tab runs the whole page instead (a fragment rerun the
    server dropped is not asked for forever), and counts afresh; a new view is asked for at once."""
    found = run_node(
        """
const state = { askedFor: null, askedAt: 0, tries: 0 };
const asks = [];
for (const [view, at] of [[7, 0], [7, 3000], [7, 6000], [7, 9000], [8, 9500]]) {
  asks.push([follow.nextAsk(state, view, at), state.askedFor, state.askedAt]);
}
state.tries = 0;  // the line drew (watchTheClass): its rerun came back
asks.push([follow.nextAsk(state, 8, 10000), state.askedFor, state.askedAt]);
console.log(JSON.stringify({ asks, most: follow.ASKS_BEFORE_PAGE_RUN }));
"""
    )
    assert found["most"] == 2
    assert found["asks"] == [
        ["poll", 7, 0],
        ["poll", 7, 3000],
        ["page", 7, 6000],  # two asks for view 7 unanswered: the whole page
        ["poll", 7, 9000],  # then asked for afresh
        ["poll", 8, 9500],  # a new view: at once
        ["poll", 8, 10000],  # the line drew meanwhile: its count starts again
    ]
