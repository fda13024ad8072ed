"""static/class_poll.js and follow.js's poll in Node: one state request per tab names each watched checkpoint once; a
board reruns only when the server's print differs from the one it drew (or the class is over); the follow line
reruns for a new view at once and for a tab still off the view's page or values only after 3 s. The expected answers
are written out by hand from the rules in ui/follow.py's and ui/classroom.py's docstrings."""

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
    imports = "".join(
        f"const {name} = await import({json.dumps((ROOT / 'static' / file).as_uri() + '?v=test')});\n"
        for name, file in (("poller", "class_poll.js"), ("follow", "follow.js"))
    )
    done = subprocess.run([NODE, "--input-type=module", "-e", imports + script], capture_output=True, text=True,
                          timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_one_request_names_the_code_and_each_checkpoint_once():
    script = """
    const list = [{ code: "K7QF3M", cp: null }, { code: "K7QF3M", cp: "cp_a.0123456789abcdef" },
                  { code: "K7QF3M", cp: "cp_b" }, { code: "K7QF3M", cp: "cp_b" }];
    console.log(JSON.stringify([poller.stateAddress("http://h/lab/", list), poller.stateAddress("http://h/", []),
      poller.folder({ origin: "http://h", pathname: "/lab/relative" })]));
    """
    address, none, folder = run_node(script)
    assert address == "http://h/lab/class/state?code=K7QF3M&cp=cp_a.0123456789abcdef%2Ccp_b"
    assert none is None and folder == "http://h/lab/"


@pytest.mark.parametrize(
    ("answer", "shown", "expected"),
    [
        ({"view": 1, "boards": {"cp_a": "abc.1.0.3.x"}}, "abc.1.0.3.x", False),  # nothing changed
        ({"view": 1, "boards": {"cp_a": "abc.1.0.4.y"}}, "abc.1.0.3.x", True),  # an answer came
        ({"view": 1, "boards": {}}, "abc.1.0.3.x", False),  # not asked about: no news
        ({"over": True}, "abc.1.0.3.x", True),  # the class ended
        ({"over": True}, "over", False),  # and the board says so already
    ],
)
def test_a_board_reruns_only_when_its_print_changed(answer, shown, expected):
    script = f"console.log(JSON.stringify(poller.boardChanged({json.dumps(answer)}, 'cp_a', {json.dumps(shown)})))"
    assert run_node(script) is expected


def test_the_follow_line_reruns_for_a_new_view_at_once_and_for_a_tab_left_behind_after_three_seconds():
    script = """
    const at = { pathname: "/lab/relative" };
    const values = { heads: 8 };
    const valueOf = (name) => values[name];
    const state = { seen: 4, following: true, askedFor: null, askedAt: 0, differsSince: null };
    const view = (n, page = "relative", settings = { heads: 8, dim: 64 }) => ({ view: n, page, settings });
    const out = [];
    out.push(follow.followReason(view(4), state, at, valueOf, 10000));          // on the view: nothing
    out.push(follow.followReason(view(5), state, at, valueOf, 10000));          // a new view: at once
    Object.assign(state, { askedFor: 5, askedAt: 10000 });
    out.push(follow.followReason(view(5), state, at, valueOf, 11000));          // asked already, still coming
    out.push(follow.followReason(view(5), state, at, valueOf, 13500));          // lost: asked again
    Object.assign(state, { seen: 5, askedAt: 0 });
    out.push(follow.followReason(view(5, "decay"), state, at, valueOf, 20000)); // off the page: noted …
    out.push(follow.followReason(view(5, "decay"), state, at, valueOf, 22000)); // … for 2 s: wait
    out.push(follow.followReason(view(5, "decay"), state, at, valueOf, 23100)); // … for 3.1 s: rerun
    state.differsSince = null;
    out.push(follow.followReason(view(5, "relative", { heads: 12 }), state, at, valueOf, 30000));
    out.push(follow.followReason(view(5, "relative", { heads: 12 }), state, at, valueOf, 33100)); // a value
    out.push(follow.followReason(view(9), { ...state, following: false }, at, valueOf, 40000)); // exploring
    console.log(JSON.stringify(out));
    """
    assert run_node(script) == [None, "view", None, "view", None, None, "behind", None, "behind", None]


def test_a_restarted_replica_reruns_the_page_once_and_reloads_only_if_the_reruns_are_lost():
    """The first answer's start id is only noted; a new one (the replica restarted) asks for a full run at once and
    again every 3 s while no script run has drawn a watcher, at most 5 times, then reloads; answers from the same
    replica ask nothing, so a tab pinned to one replica is never rerun twice for one restart."""
    script = """
    const state = { start: null, pending: false, asked: 0, tries: 0 };
    const out = [];
    const at = (start, now) => out.push(poller.restartAnswered(state, { view: 1, start }, now));
    at("aaaa", 1000); at("aaaa", 2000);                      // first answers: nothing
    at("bbbb", 3000);                                        // restarted: rerun at once
    at("bbbb", 4000); at("bbbb", 6100);                      // still pending: wait, then again after 3 s
    for (let now = 9200; now < 30000; now += 3100) at("bbbb", now);  // lost each time: 3 more reruns, then reload
    const before = out.length;
    Object.assign(state, { pending: false });                // a watcher was drawn by a script run
    at("bbbb", 40000); at("bbbb", 41000);                    // the same replica: nothing
    at(undefined, 42000);                                    // an answer without it (the class is over): nothing
    console.log(JSON.stringify([out.slice(0, before), out.slice(before), state.start]));
    """
    asked, after, start = run_node(script)
    assert asked[:5] == [None, None, "rerun", "wait", "rerun"]
    assert asked[5:8] == ["rerun", "rerun", "rerun"] and asked[8] == "reload"
    assert after == [None, None, None] and start == "bbbb"


def test_a_following_tab_takes_the_teachers_values_on_its_page_at_once():
    """static/follow.js teacherValues: while following and on the view's page, the values that differ from the
    store's (numbers only, names the store holds); nothing on another page, nothing while exploring, nothing when
    every value already agrees."""
    script = """
    const at = { pathname: "/lab/relative" };
    const values = { heads: 8, dim: 64, length: 128 };
    const valueOf = (name) => values[name];
    const following = { following: true }, exploring = { following: false };
    const view = (page, settings) => ({ view: 7, page, settings });
    console.log(JSON.stringify([
      follow.teacherValues(view("relative", { heads: 12, dim: 64, length: 128 }), following, at, valueOf),
      follow.teacherValues(view("relative", { heads: 8, dim: 64, length: 128 }), following, at, valueOf),
      follow.teacherValues(view("decay", { heads: 12 }), following, at, valueOf),
      follow.teacherValues(view("relative", { heads: 12 }), exploring, at, valueOf),
      follow.teacherValues(view("relative", { heads: "12", dim: 96, forged: 3, length: NaN }), following, at,
                           valueOf),
      follow.teacherValues({ view: 7 }, following, at, valueOf),
      follow.teacherValues(view("", { dim: 96 }), following, { pathname: "/" }, valueOf),
    ]));
    """
    assert run_node(script) == [{"heads": 12}, None, None, None, {"dim": 96}, None, {"dim": 96}]


def test_a_following_tab_opens_the_teachers_new_page_at_once():
    """static/follow.js teacherPage: while following, a new view (not the line's `seen`, not one asked for in the
    last three seconds) on another page is opened at once; nothing on the same page, for a view already seen, while
    exploring, after the student's own move, or for a malformed answer."""
    script = """
    const at = { pathname: "/lab/relative" };
    const state = (extra = {}) => ({ following: true, seen: 6, askedFor: null, askedAt: 0, ownMove: false, ...extra });
    const view = (page, number = 7) => ({ view: number, page, settings: {} });
    const now = 100000;
    console.log(JSON.stringify([
      follow.teacherPage(view("decay"), state(), at, now),
      follow.teacherPage(view("relative"), state(), at, now),
      follow.teacherPage(view("decay", 6), state(), at, now),
      follow.teacherPage(view("decay"), state({ following: false }), at, now),
      follow.teacherPage(view("decay"), state({ ownMove: true }), at, now),
      follow.teacherPage(view("decay"), state({ askedFor: 7, askedAt: now - 1000 }), at, now),
      follow.teacherPage(view("decay"), state({ askedFor: 7, askedAt: now - 4000 }), at, now),
      follow.teacherPage({ view: 7, page: 3 }, state(), at, now),
      follow.teacherPage(view(""), state(), at, now),
    ]));
    """
    assert run_node(script) == ["decay", None, None, None, None, None, "decay", None, ""]
