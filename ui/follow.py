"""Follow the teacher: in a class, each student's page shows the teacher's page, settings and checkpoint.

The teacher's session **publishes** its view (:func:`publish_view`: the page, the four shared values, the checkpoint it
last acted on, the lesson's step) to the class store whenever it changes: on every full run, after every commit of a
shared value, after a lesson step. A student's browser **polls** it without a script run (static/class_poll.js asks
``class/state``, ui/class_http.py, every :data:`POLL_S` seconds) and reruns :func:`follow_line` (an ``st.fragment``: one
store read, one small element) only when the view's number is not the one the line last drew, or the tab's page or
values still differ from the view's after :data:`AGAIN_S`. While following, the line asks the browser
(``static/follow.js``) to do what changed: open the teacher's page through Streamlit's own router, set the tab's store
to the teacher's values (every live picture follows at once), and scroll the checkpoint into view. The teacher's values
on the page the student shows are stored by the poll's rerun itself (:func:`_polled`: validated, with the sidebar and
the sections that use them rerun in the same pass), so the browser only sets its store; after a full run (a page opened,
a reload) the browser commits them back as the sidebar's release does. A student who moves a shared control or opens
another page on their own explores: the page says so in one quiet line, with one button to follow again. Each student's
browser reports its mode with a heartbeat (``class/beat`` every :data:`BEAT_S` seconds, with the mode the line last
drew; the server beats itself when the mode changes), and the teacher's panel counts them."""

from __future__ import annotations

import secrets
import sys
import time
from pathlib import Path

import streamlit as st

from classroom.store import MODES
from ui import classroom as class_mode  # class_mode.classroom(): the server's one Classroom (a test replaces it)
from ui.classroom import BROWSER, SECRET, class_code, teaching
from ui.component_data import component_data
from ui.language import t
from ui.limits import SHARED_NAMES
from ui.menu import CHECKPOINTS, PAGES
from ui.once import computed_once
from ui.sections import SECTION_OF, defer_out_of_sight
from ui.static_files import STATIC_VERSION

PAGE_NOW = "follow_page_now"  # the page this session shows (a ui.menu page name), noted on each full run
FOCUS = "follow_focus"  # the checkpoint the teacher last acted on (brought into view on students' screens)
STEP = "follow_step"  # the teacher's lesson step now shown: {"index", "note", "page", "checkpoint"} or absent
MODE = "follow_mode"  # a student's mode: "follow" or "explore"
PUBLISHED = "follow_published"  # the teacher's view as last stored
_SEEN = "follow_seen"  # a student's: the view number last acted on
_PENDING = "follow_pending"  # a student's: the teacher's values the browser was asked to commit
_EXPECTED = "follow_expected"  # a student's: the pages a full run may show without the student having left
_TARGET = "follow_target"  # a student's: the page the browser was last asked to open
_ORDER = "follow_order"  # a student's: the instruction for the browser, until the next one
_BEAT = "follow_beat"  # a student's: (mode, time) of the last heartbeat
_ASKED_AT = "follow_asked_at"  # a student's: when the browser was last asked to catch up
_OPENED = "follow_opened"  # a student's: the id of the page order whose first full run has been (a page step)
BROWSER_DONE = "follow_browser_done"  # a test says the browser did its instruction (AppTest runs no browser code)
_PREFIX = "follow_prefix"  # a random prefix for this session's instruction ids
POLL_S = 0.5  # a student's tab asks class/state this often (static/class_poll.js); its screen follows within this
# plus one rerun of what changed (1 s until session 21: the teacher's change reached the class 0.25 s later on average)
BEAT_S = 2.0  # a heartbeat at least this often (service.BEAT_TTL_S: counted for 5 s; static/class_poll.js's BEAT_MS)
_ELEMENT_KEY = "follow_element"  # the follow line's browser element (static/follow.js)
LINE_KEY = "follow_line"  # the follow line's fragment (a commit that made the student explore reruns it)
_LINE_DRAWN = "follow_line_drawn"  # the follow line is on the page now shown (its key may be rerun)
AGAIN_S = 3.0  # a browser that has not caught up is asked again after this long
OPEN_SECTIONS = 1  # a following student's page step draws this many sections at the top (and the checkpoint's):
# the others wait until the browser has them in view, or within a screen of it a little later (static/sections.js)
PATHS = {page.name: page.path for page in PAGES}
ROOT = Path(__file__).resolve().parents[1]

LOADER_JS = """
export default function (component) {
  // static/follow.js with the release's version (see ui/shared.py's loader): it shares the tab's store.js
  const script = new URL("app/static/follow.js?v=STATIC_VERSION", window.location.href.replace(/[^/]*$/, ""));
  let stop = null, gone = false;
  import(script.href).then((follow) => { stop = follow.render(component); if (gone && stop) stop(); });
  return () => { gone = true; if (stop) stop(); };  // gone from the page: its poll and heartbeat stop
}
""".replace("STATIC_VERSION", STATIC_VERSION)
_ELEMENT = st.components.v2.component("posenc_lab_follow", js=LOADER_JS)


def url_path(page: str) -> str:
    """The page's address under the app (Streamlit's default: the script's name; "" for the home page)."""
    return "" if page == PAGES[0].name else PATHS[page].removeprefix("pages/").removesuffix(".py")


def page_now() -> str | None:
    return st.session_state.get(PAGE_NOW)


def page_running() -> str | None:
    """The page whose script is running (the first of ui.menu's page files on the call stack), or None."""
    frame = sys._getframe(1)
    while frame is not None:
        name = _SCRIPTS.get(_resolved(frame.f_code.co_filename))
        if name:
            return name
        frame = frame.f_back
    return None


_SCRIPTS = {str(ROOT / path): name for name, path in PATHS.items()}  # a page file's full path -> its page


@computed_once(maxsize=1024)
def _resolved(filename: str) -> str:
    """A code object's file as a full path, resolved once per file (a page step's full run walks some 40 frames;
    resolving each on disk, for every student, was a quarter of presenter_view's time in a page step)."""
    return str(Path(filename).resolve())


def browser_order(order: dict | None, key: str, keys: bool = False, on_commit=None, on_step=None,
                  watch: dict | None = None, on_poll=None) -> None:  # fmt: skip
    """The browser element with one instruction (see static/follow.js), with ``keys`` the lesson's keys, and with
    ``watch`` a student's poll of the class (its trigger ``poll`` reruns the fragment the element is in)."""
    callbacks = {"on_commit_change": on_commit or _nothing, "on_step_change": on_step or _nothing,
                 "on_poll_change": on_poll or _nothing}  # fmt: skip
    data = {"order": order, "keys": keys} | ({"watch": watch} if watch else {})
    _ELEMENT(data=component_data(data), key=key, **callbacks)


def _nothing() -> None:
    """A trigger nobody listens to here."""


def new_order(**what) -> dict:
    """An instruction with an id this tab has not seen (a session prefix and a counter)."""
    prefix = st.session_state.setdefault(_PREFIX, secrets.token_hex(4))
    count = st.session_state.get(f"{_PREFIX}_n", 0) + 1
    st.session_state[f"{_PREFIX}_n"] = count
    return {"id": f"{prefix}-{count}"} | what


# the teacher -----------------------------------------------------------------------------------------------------
def teacher_view() -> dict | None:
    """What a following class should see now (a view as classroom.lesson reads it), or None off the app's pages."""
    from ui.shared import shared_value  # ui.shared imports this module

    page = page_now()
    if page is None:
        return None
    step = st.session_state.get(STEP)
    on_step = step is not None and step.get("page") == page
    focus = step.get("checkpoint") if on_step else st.session_state.get(FOCUS)
    view = {"page": page, "settings": {name: shared_value(name) for name in SHARED_NAMES}}
    if focus and focus in CHECKPOINTS.get(page, ()):
        view["checkpoint"] = focus
    if on_step:
        view |= {"index": step["index"]} | ({"note": step["note"]} if step.get("note") else {})
    return view


def publish_view() -> None:
    """The teacher's session: store the view when it changed since it was last stored (a full run, a commit, a
    checkpoint acted on, a lesson step)."""
    if not teaching():
        return
    view = teacher_view()
    if view is None or view == st.session_state.get(PUBLISHED):
        return
    outcome = class_mode.classroom().show(class_code(), st.session_state.get(SECRET), view)
    if outcome.ok:
        st.session_state[PUBLISHED] = view


def focus_on(checkpoint: str) -> None:
    """The teacher acted on ``checkpoint`` (showed its answers, revealed, polled again): the class looks at it."""
    st.session_state[FOCUS] = checkpoint
    publish_view()


@st.fragment(run_every=POLL_S)
def modes_line() -> None:
    """The teacher's panel: how many students follow and how many explore, counted again every second."""
    counts = class_mode.classroom().modes(class_code()).value or dict.fromkeys(MODES, 0)
    st.caption(t("lesson.modes", follow=counts["follow"], explore=counts["explore"]))


# a student -------------------------------------------------------------------------------------------------------
def following() -> bool:
    return bool(class_code()) and not teaching() and st.session_state.get(MODE, "follow") == "follow"


def explore() -> None:
    """The student went their own way: stop following (the follow line's rerun says so, and beats)."""
    st.session_state[MODE] = "explore"
    st.session_state.pop(_ORDER, None)


def line_to_rerun() -> list[str]:
    """The follow line's fragment key when a commit must rerun it with the sections it reruns (the student now
    explores, and no timer reruns the line), else nothing."""
    if not class_code() or teaching() or st.session_state.get(_LINE_DRAWN) != page_now():
        return []
    return [LINE_KEY] if st.session_state.get(MODE) != st.session_state.get(_BEAT, (None,))[0] else []


def after_commit(changed: set[str]) -> None:
    """After a shared value was committed from the sidebar or a live chart: a teacher publishes it; a following
    student who moved it explores."""
    if teaching():
        publish_view()
    elif changed and following():
        explore()


def note_full_run() -> None:
    """On every full run of a page: the teacher publishes; a following student who opened a page the teacher did
    not show explores. (The pages a full run may show: the one the student was on, and each the browser was asked
    to open since, until it has opened the last.)"""
    st.session_state[PAGE_NOW] = page_running()
    if teaching():
        step = st.session_state.get(STEP)
        if step and step.get("pending"):  # a lesson step on another page: published already, the browser on its way
            if step["page"] != page_now():
                return
            step["pending"] = False
        publish_view()
        return
    page = page_now()
    if not following() or page is None:
        return
    expected = st.session_state.get(_EXPECTED)
    if expected is not None and page not in expected:
        explore()
        return
    if expected is None or page == st.session_state.get(_TARGET):
        st.session_state[_EXPECTED] = {page}
    order = st.session_state.get(_ORDER) or {}
    if page == st.session_state.get(_TARGET) and st.session_state.get(_OPENED) != order.get("id"):
        # the teacher's page, opened by the whole class at once (its first run only: a later full run, as a
        # checkpoint's answer makes, draws everything, not the box the student is looking at)
        st.session_state[_OPENED] = order.get("id")
        _defer_for(order.get("checkpoint"))


def _defer_for(checkpoint: str | None) -> None:
    """This run draws the page's top and the section of ``checkpoint``; the other sections wait until near. A
    checkpoint whose section this process has not seen drawn yet (``SECTION_OF`` is learnt as pages run: a replica
    just started) draws the whole page: the box the browser scrolls to must be there."""
    if checkpoint and checkpoint not in SECTION_OF:
        return
    defer_out_of_sight(OPEN_SECTIONS, keep=[SECTION_OF[checkpoint]] if checkpoint else [])


def join_teacher_page() -> None:
    """Before the sidebar of a full run: a following student's tab that opened the page the class's view shows on its
    own (static/follow.js's teacherPage, on a poll, without the follow line's rerun) takes the view here: the
    teacher's values, this page as the one the browser was sent to (so it is not read as exploring), and the
    page step's drawing (the top of the page and the checkpoint's section). Only the class's view moves the student:
    a page that is not the view's is left to :func:`note_full_run`, which counts it as exploring."""
    page = page_running()
    if page is None or page == page_now() or not following() or BROWSER not in st.session_state:
        return
    outcome = class_mode.classroom().view(class_code())
    if not outcome.ok or outcome.value[1] is None or outcome.value[1].step.page != page:
        return
    from ui.shared import set_shared_values

    step = outcome.value[1].step
    set_shared_values(step.settings)
    st.session_state[_EXPECTED] = st.session_state.get(_EXPECTED, set()) | {page}
    st.session_state[_TARGET] = page
    st.session_state[_OPENED] = (st.session_state.get(_ORDER) or {}).get("id")  # note_full_run: no second plan
    _defer_for(step.checkpoint)


def follow_again() -> None:
    st.session_state[MODE] = "follow"
    for key in (_SEEN, _EXPECTED, _TARGET):
        st.session_state.pop(key, None)


@st.fragment(key=LINE_KEY)
def follow_line() -> None:
    """A student in a class: read the teacher's view, ask the browser to follow it, say the mode, beat when it
    changed. Rerun by the browser (static/follow.js) when the class's view moved on, never by a timer."""
    code = class_code()
    if not code or teaching() or BROWSER not in st.session_state:
        return  # until the browser has said who it is, this may be the teacher's own reload
    st.session_state[_LINE_DRAWN] = page_now()
    st.session_state.setdefault(MODE, "follow")  # a student who joins follows
    if st.session_state.pop(BROWSER_DONE, False):
        from ui.shared import mirror_in_url

        _apply_pending()
        mirror_in_url()
    outcome = class_mode.classroom().view(code)
    seq, view = outcome.value if outcome.ok else (0, None)
    if following() and view is not None:
        _catch_up(seq, view)
    _heartbeat(code)
    order = st.session_state.get(_ORDER) if following() else None
    mode = st.session_state.get(MODE, "follow")
    watch = {"code": code, "browser": st.session_state.get(BROWSER), "mode": mode, "seen": seq,
             "following": following()}  # fmt: skip
    browser_order(order, _ELEMENT_KEY, on_commit=_commit_followed, on_poll=_polled, watch=watch)
    if following():
        if view is not None and view.index is not None:
            st.caption(t("lesson.following_step", step=view.index + 1, note=view.step.note))
        elif view is not None:
            st.caption(t("lesson.following"))
        return
    line, button = st.columns([5, 2], vertical_alignment="center")
    line.caption(t("lesson.exploring"))
    button.button(t("lesson.follow_again"), key="follow_again", icon=":material/cast_for_education:",
                  on_click=follow_again, help=t("lesson.follow_again_help"))  # fmt: skip


def _catch_up(seq: int, view) -> None:
    """Ask the browser for what differs between this page and the teacher's view: a new view at once, an old one
    again after :data:`AGAIN_S` seconds (an instruction lost in a reconnect)."""
    from ui.shared import shared_value

    step, page = view.step, page_now()
    values = {name: value for name, value in step.settings.items() if shared_value(name) != value}
    other_page = page is not None and step.page != page
    new = st.session_state.get(_SEEN) != seq
    late = (other_page or values) and time.monotonic() - st.session_state.get(_ASKED_AT, 0.0) > AGAIN_S
    if not (new or late):
        return
    st.session_state[_SEEN] = seq
    st.session_state[_ASKED_AT] = time.monotonic()
    # the checkpoint's section too, where it is known: the browser scrolls to it while the section may still wait
    focus = _focus(step.checkpoint)
    if other_page:
        from ui.shared import set_shared_values

        set_shared_values(step.settings)  # the teacher's page opens with the teacher's values
        st.session_state[_EXPECTED] = st.session_state.get(_EXPECTED, set()) | {page, step.page}
        st.session_state[_TARGET] = step.page
        st.session_state[_ORDER] = new_order(page=url_path(step.page), **focus)
    elif values:
        st.session_state[_PENDING] = step.settings
        st.session_state[_ORDER] = new_order(values=values, **focus)
    elif new:
        st.session_state[_ORDER] = new_order(**focus)


def _polled() -> None:
    """The browser reran the follow line (its ``poll`` trigger). When the teacher's view has other values on this
    same page, take them in this pass: store them (validated, as the browser's commit would be), and rerun the
    sidebar and the sections in the browser's viewport that use them with the line (:func:`ui.shared.follow_commit`;
    those within a screen of it follow a little later, ui.sections), while the line asks the browser only to set its
    store (``stored``: no commit back). Anything else (another page, a checkpoint, the mode): the line's own rerun
    does it. Only the class's view moves the student, and only while following."""
    if not following() or st.session_state.get(_LINE_DRAWN) != page_now():
        return
    outcome = class_mode.classroom().view(class_code())
    if not outcome.ok or outcome.value[1] is None:
        return
    seq, view = outcome.value
    taken = _take_values(seq, view)
    if taken is not None:
        from ui.shared import follow_commit

        near, visible = _near("poll"), _near("poll", "visible")  # a crowd: only the sections in view rerun now
        follow_commit(taken, by_teacher=True, also=(LINE_KEY,), near=near, visible=visible)


def _take_values(seq: int, view) -> set[str] | None:
    """Store the view's values when it shows this page with other values and is new or still not shown after
    :data:`AGAIN_S` (as :func:`_catch_up` asks the browser); the names that changed, or None when nothing is due."""
    from ui.shared import set_shared_values, shared_value

    step = view.step
    values = {name: value for name, value in step.settings.items() if shared_value(name) != value}
    new = st.session_state.get(_SEEN) != seq
    late = time.monotonic() - st.session_state.get(_ASKED_AT, 0.0) > AGAIN_S
    if step.page != page_now() or not values or not (new or late):
        return None
    changed = set_shared_values(step.settings)
    st.session_state[_SEEN] = seq
    st.session_state[_ASKED_AT] = time.monotonic()
    st.session_state.pop(_PENDING, None)
    stored = {name: shared_value(name) for name in values}  # as validated, not as the view holds them
    st.session_state[_ORDER] = new_order(values=stored, stored=True, **_focus(step.checkpoint))
    return changed


def _focus(checkpoint: str | None) -> dict:
    """What an instruction says to bring into view: the checkpoint and, where it is known, its section (the browser
    scrolls to the section while it may still wait to be drawn: a page step drew the page's top only)."""
    return {"checkpoint": checkpoint} | ({"section": SECTION_OF[checkpoint]} if checkpoint in SECTION_OF else {})


def _commit_followed() -> None:
    """The browser set its store to the teacher's values: store them (as the store holds them, not as the browser
    sent them) and rerun what uses them, as a release does, without counting it as the student's own move."""
    from ui.shared import follow_commit

    follow_commit(_apply_pending(), by_teacher=True, near=_near("commit"))


def _near(trigger: str, which: str = "near"):
    """The sections the browser named near its viewport (``which``: "near", within a screen of it; "visible", in
    it) with the follow element's ``trigger`` (ui.sections reads them: anything malformed counts as none)."""
    sent = (st.session_state.get(_ELEMENT_KEY) or {}).get(trigger)
    return sent.get(which) if isinstance(sent, dict) else None


def _apply_pending() -> set[str]:
    """Store the teacher's values the browser was asked to commit; the names that changed."""
    from ui.shared import set_shared_values

    pending = st.session_state.pop(_PENDING, None)
    return set_shared_values(pending) if pending else set()


def _heartbeat(code: str) -> None:
    """Beat once when the mode changed (the teacher's count follows at once); the browser beats every
    :data:`BEAT_S` (static/class_poll.js). A beat is a store write: a line rerun by each of a hundred students at once
    must not queue a hundred of them behind the store's one writer."""
    mode = st.session_state.get(MODE, "follow")
    last_mode, _ = st.session_state.get(_BEAT, (None, 0.0))
    browser = st.session_state.get(BROWSER)
    if browser and mode != last_mode and class_mode.classroom().beat(code, browser, mode).ok:
        st.session_state[_BEAT] = (mode, time.monotonic())
