"""A page's sections as keyed fragments, so a shared-control commit reruns only the sections that use what changed
and that the student can see.

``@section("sin_waves", uses=("dim", "base"))`` makes a page function an ``st.fragment`` with that key, drawn in a
container keyed ``section-sin_waves`` (the browser finds it by its class, ``st-key-section-sin_waves``), and records
which shared values it reads. When the browser commits new shared values (the sidebar's release, a live chart's
release: ``ui.shared``), it names the sections within a screen of the viewport (``static/sections.js``), and
:func:`rerun_sections` reruns, in one pass, the sidebar and those of them whose ``uses`` changed, not the page. The
others that use a changed value are noted as stale (:func:`stale_sections`, sent with the sidebar's data); the
browser asks for each when it comes within a screen of the viewport, and :func:`refresh_sections` reruns it then. A
following class's poll (ui/follow.py: a hundred tabs take the teacher's values at once) names the sections in the
viewport too (``visible``): only those rerun with it, and those within a screen but out of view wait as stale "later"
(:func:`later_sections`): the browser asks for each as it comes into view, or :data:`LATER_S` later. A
picture that follows the store (``ui.figure``, ``ui.live``) is redrawn in the browser either way; what waits is the
server's part: checkpoints, notices, the pictures only the server draws. A commit that names no sections (a test,
the teacher's values taken by a following student) reruns every section that uses what changed.

What a commit does is planned first (:func:`plan_commit`, :func:`plan_refresh` for stale sections asked for) and then
applied (:func:`apply_commit`): the sidebar's callback applies it and reruns the plan's fragments; a commit over HTTP
(ui.commit_http) applies it only when the plan reruns no fragment, and :func:`reruns_for` tells the browser which
commits would.

A fragment rerun calls the function with the arguments of the page's last full run, so the wrapper replaces every
argument named in ``uses`` by the shared value as it is now.

A section whose pictures all follow the store in the browser draws what the server computes from the shared values
(a checkpoint that quotes them, a notice's numbers, a picture only the server draws) in **parts**:
``@part("rope_slowest", uses=("dim", "base"))``, a keyed fragment inside a section declared with ``whole``: a
commit (and a stale section's refresh) reruns only its parts that read what changed, a few small elements instead of
the section's every formula, code listing and chart; ``whole`` names the shared values the rest of the section still
reads on the server (a live chart whose arrays are drawn for the dim, a choice of columns up to it): a commit of one
of them reruns the section itself. tests/test_sections.py holds every section to it: after a commit, the page is
what a full run at the new values draws.

A full run may also **defer** the sections out of sight (:func:`defer_out_of_sight`: a following student's page step,
where a hundred students open the teacher's page at once): each past the first few is drawn as an empty box
(``DEFERRED_HEIGHT_PX``) holding a small element (``static/sections.js``, ``watchDeferred``) that asks for the section
at once when it is in the viewport, a little later when it is within a screen of it; that trigger reruns the
section's fragment, which draws it. Only a full run defers; every fragment rerun draws the section.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterable
from typing import NamedTuple

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from ui.component_data import component_data
from ui.limits import SHARED_NAMES
from ui.menu import CHECKPOINT_SECTIONS
from ui.static_files import STATIC_VERSION

_USES = "sections_uses"  # section key -> the shared values it reads, for the page now shown
_PARTS = "sections_parts"  # part key -> (the key of the section it is drawn in, the shared values it reads)
_COMPUTED = "sections_computed"  # keys of the parts whose words a commit computes instead of rerunning (ui.words)
_WHOLE = "sections_whole"  # key of a section drawn in parts -> the shared values whose commit reruns it whole
_STALE = "sections_stale"  # keys of sections a commit changed the values of while they were out of sight
_LATER = "sections_later"  # of those, the ones within a screen of the viewport: asked for in view, or LATER_S later
LATER_S = 2.0  # static/sections.js's LATER_MS: a waiting or "later" section near the viewport is asked for this late
MAX_NAMED = 64  # a commit naming more sections than this (or anything but keys) is read as naming none
SIDEBAR_KEY = "shared_sidebar"  # the sidebar's controls and the settings caption: rerun with every commit
_DEFER = "sections_defer"  # this full run's deferral: {"first": sections drawn at the top, "keep": keys, "seen": n}
_RUNNING = "section_running"  # the key of the section running now (its checkpoints are noted as in it)
SECTION_OF: dict[str, str] = dict(CHECKPOINT_SECTIONS)  # checkpoint -> the section it is in (noted as pages run too)
DEFERRED_HEIGHT_PX = 480  # an empty deferred section's height, so the page below it is about where it will be

DEFER_JS = """
export default function (component) {
  // static/sections.js with the release's version (see ui/live.py's loader): ask for the section once it is near
  const script = new URL("app/static/sections.js?v=STATIC_VERSION", window.location.href.replace(/[^/]*$/, ""));
  let stop = null, gone = false;
  import(script.href).then((sections) => { stop = sections.watchDeferred(component); if (gone && stop) stop(); });
  return () => { gone = true; if (stop) stop(); };
}
""".replace("STATIC_VERSION", STATIC_VERSION)
_DEFERRED = st.components.v2.component(
    "posenc_lab_deferred", js=DEFER_JS, css=f":host {{ display: block; min-height: {DEFERRED_HEIGHT_PX}px; }}"
)


def forget_sections() -> None:
    """Forget the sections drawn before: called at the top of every full run, which draws them all again."""
    st.session_state[_USES] = {}
    st.session_state[_PARTS] = {}
    st.session_state[_COMPUTED] = set()
    st.session_state[_WHOLE] = {}
    st.session_state[_STALE] = set()
    st.session_state[_LATER] = set()
    st.session_state.pop(_DEFER, None)


def defer_out_of_sight(first: int, keep: Iterable[str] = ()) -> None:
    """This full run draws the page's first ``first`` sections and those keyed ``keep``; the others wait, empty,
    until the browser has them within a screen of its viewport (see the module's docstring)."""
    st.session_state[_DEFER] = {"first": first, "keep": set(keep), "seen": 0}


def _deferred(key: str) -> bool:
    """Whether this call of section ``key`` is drawn as an empty box (a deferring full run, past the first sections)."""
    plan = st.session_state.get(_DEFER)
    if plan is None:
        return False
    ctx = get_script_run_ctx()
    if ctx is None or ctx.fragment_ids_this_run:  # a fragment rerun draws its sections
        return False
    plan["seen"] += 1
    return plan["seen"] > plan["first"] and key not in plan["keep"]


def in_section() -> bool:
    """Whether a section is running now (what it draws reruns with it)."""
    return bool(st.session_state.get(_RUNNING))


def note_checkpoint(checkpoint_key: str) -> None:
    """Note the section the checkpoint ``checkpoint_key`` is drawn in (``SECTION_OF``), when it is in one."""
    running = st.session_state.get(_RUNNING)
    if running:
        SECTION_OF[checkpoint_key] = running


def with_shared_values(signature: inspect.Signature, uses: tuple[str, ...], args, kwargs) -> inspect.BoundArguments:
    """The call's arguments, each named in ``uses`` replaced by the shared value as it is now."""
    from ui.shared import shared_value  # ui.shared imports this module

    bound = signature.bind(*args, **kwargs)
    for name in uses:
        if name in bound.arguments:
            bound.arguments[name] = shared_value(name)
    return bound


def section(key: str, uses: Iterable[str] = (), whole: Iterable[str] | None = None) -> Callable:
    """Decorator: the function as a fragment keyed ``key`` that a commit of any of ``uses`` reruns; with ``whole``,
    drawn in :func:`part` s: a commit reruns it only for a value of ``whole``, else its parts that read what
    changed."""
    uses, whole = tuple(uses), None if whole is None else tuple(whole)

    def decorate(function: Callable) -> Callable:
        signature = inspect.signature(function)

        @st.fragment(key=key)
        @functools.wraps(function)
        def run(*args, **kwargs):
            bound = with_shared_values(signature, uses, args, kwargs)
            st.session_state.setdefault(_USES, {})[key] = uses
            if whole is not None:
                st.session_state.setdefault(_WHOLE, {})[key] = whole
            st.session_state.setdefault(_STALE, set()).discard(key)
            st.session_state.setdefault(_LATER, set()).discard(key)
            parts = st.session_state.setdefault(_PARTS, {})
            for drawn in [name for name, (owner, _) in parts.items() if owner == key]:
                del parts[drawn]  # drawn again below, if this run still draws it
            try:
                with st.container(key=f"section-{key}"):  # the class st-key-section-<key> tells the browser where
                    if _deferred(key):
                        _DEFERRED(key=f"deferred-{key}", data=component_data({"key": key}), on_near_change=_nothing)
                        return None
                    st.session_state[_RUNNING] = key
                    return function(*bound.args, **bound.kwargs)
            finally:
                st.session_state[_RUNNING] = None

        return run

    return decorate


def keyed_part(key: str, body: Callable[[Callable, inspect.BoundArguments], object]) -> Callable:
    """Decorator: the function as a fragment keyed ``key`` whose every run calls ``body(function, bound)``, ``bound``
    its arguments with every one named after a shared value at that value as it is now (:func:`with_shared_values`):
    the shape of :func:`part`, ui.words' words parts and ui.figure's figure parts."""

    def decorate(function: Callable) -> Callable:
        signature = inspect.signature(function)

        @st.fragment(key=key)
        @functools.wraps(function)
        def run(*args, **kwargs):
            return body(function, with_shared_values(signature, SHARED_NAMES, args, kwargs))

        return run

    return decorate


def part(key: str, uses: Iterable[str] = ()) -> Callable:
    """Decorator: the function as a fragment keyed ``key``, drawn inside a section, that a commit of any of ``uses``
    reruns instead of the section (see the module's docstring). It is called with every argument named after a
    shared value at that value as it is now (one it does not rerun for may feed a picture that follows the store)."""
    uses = tuple(uses)

    def body(function: Callable, bound: inspect.BoundArguments):
        parts = st.session_state.setdefault(_PARTS, {})
        running = st.session_state.get(_RUNNING)
        alone = not running  # rerun by itself: a commit's, or its own widget's
        if running:
            parts[key] = (running, uses)
        else:
            st.session_state[_RUNNING] = parts.get(key, (None, ()))[0]  # its checkpoints are in its section
        try:
            return function(*bound.args, **bound.kwargs)
        finally:
            if alone:
                st.session_state[_RUNNING] = None

    return keyed_part(key, body)


def note_part(key: str, uses: Iterable[str], computed: bool = False) -> None:
    """Note a part ``key`` (a keyed fragment drawn now, reading ``uses``) of the section running now, as
    :func:`part` does; ``computed``: a commit computes its words (ui.words) instead of rerunning it."""
    running = st.session_state.get(_RUNNING)
    if running:
        st.session_state.setdefault(_PARTS, {})[key] = (running, tuple(uses))
    computed_keys = st.session_state.setdefault(_COMPUTED, set())
    (computed_keys.add if computed else computed_keys.discard)(key)


def _nothing() -> None:
    """The deferred box's ``near`` trigger needs no callback: it reruns the section's fragment, which draws it."""


def fragment_rerun() -> bool:
    """Whether this run reruns fragments only: every element it draws was drawn before in the browser, by the last
    run of its fragment or the page's last full run (a deferred section's first drawing aside: ui.figure forgets
    what it sent at each full run), so a figure the browser redraws from the store need not be built again
    (:func:`ui.figure.figure_chart`)."""
    ctx = get_script_run_ctx()
    return bool(ctx is not None and ctx.fragment_ids_this_run)


def sections_using(changed: Iterable[str]) -> list[str]:
    """Keys of the current page's sections that read any of ``changed`` (those that drew parts: in a part), in the
    order they were drawn."""
    changed = set(changed)
    parts, whole = st.session_state.get(_PARTS, {}), st.session_state.get(_WHOLE, {})
    uses = dict(st.session_state.get(_USES, {}))
    for key in whole:
        uses[key] = {*whole[key], *(name for owner, used in parts.values() if owner == key for name in used)}
    return [key for key, used in uses.items() if changed & set(used)]


def fragments_of(sections: Iterable[str], changed: Iterable[str] | None = None) -> list[str]:
    """The fragments that draw ``sections`` anew after a commit of ``changed`` (None: any value, a stale section's):
    a section drawn in parts, itself when a value of its ``whole`` did, else its parts that read what changed; any
    other section, itself."""
    parts, whole = st.session_state.get(_PARTS, {}), st.session_state.get(_WHOLE, {})
    fragments = []
    for key in sections:
        rest = whole.get(key)
        if rest is None or (rest and (changed is None or set(rest) & set(changed))):
            fragments.append(key)
        else:
            own = [name for name, (owner, _) in parts.items() if owner == key]
            fragments += [name for name in own if changed is None or set(changed) & set(parts[name][1])]
    return fragments


def named_sections(raw) -> set[str] | None:
    """The section keys a browser named (a list of strings), or None when it named none or sent anything else."""
    if not isinstance(raw, list) or len(raw) > MAX_NAMED or not all(isinstance(key, str) for key in raw):
        return None
    return set(raw)


def reruns_for() -> dict[str, list[str]]:
    """For each section of the page now shown that some commit would rerun a fragment of, the shared values whose
    commit does (the section itself, or a part a commit does not compute; any value it uses while it is stale): the
    browser commits those through the sidebar's element, the others over HTTP (ui.commit_http)."""
    parts, whole = st.session_state.get(_PARTS, {}), st.session_state.get(_WHOLE, {})
    computed, stale = st.session_state.get(_COMPUTED, set()), st.session_state.get(_STALE, set())
    out = {}
    for key, used in st.session_state.get(_USES, {}).items():
        rest = whole.get(key)
        own = {name: reads for name, (owner, reads) in parts.items() if owner == key}
        rerun_own = [name for name in own if name not in computed]
        if rest is None:  # drawn whole: every value it uses
            rerun = set(used)
        elif key in stale:  # a stale section draws all its parts, or itself when it has values of its own
            rerun = {*rest, *(n for reads in own.values() for n in reads)} if rest or rerun_own else set()
        else:
            rerun = {*rest, *(n for name in rerun_own for n in own[name])}
        if rerun:
            out[key] = sorted(rerun)
    return out


def stale_sections() -> list[str]:
    """Keys of the sections drawn with values a commit has since changed, in the order they were drawn."""
    stale = st.session_state.get(_STALE, set())
    return [key for key in st.session_state.get(_USES, {}) if key in stale]


def later_sections() -> list[str]:
    """Keys of the stale sections the browser asks for once in view, or :data:`LATER_S` later (a following class's
    poll left them: :func:`rerun_sections` with ``visible``), in the order they were drawn."""
    later = st.session_state.get(_LATER, set())
    return [key for key in stale_sections() if key in later]


class CommitPlan(NamedTuple):
    """What a commit of shared values does to the page's sections (:func:`plan_commit`)."""

    using: list[str]  # the sections that draw anew now (their parts, or themselves)
    stale: list[str]  # those that wait out of sight until the browser asks for them
    later: list[str]  # of those, the ones in the near screens that wait as "later"
    computed: list[str]  # the parts whose words (or pictures) are computed, not rerun (ui.words)
    rerun: list[str]  # the fragments to rerun


def plan_commit(changed: Iterable[str], near=None, visible=None) -> CommitPlan:
    """What a commit of ``changed`` does, changing nothing yet (:func:`rerun_sections` has the arguments)."""
    using = sections_using(changed)
    waiting = set(st.session_state.get(_STALE, set()))  # a section stale before: all its parts rerun, not only some
    near, visible = named_sections(near), named_sections(visible)
    stale, later = [], []
    if near is not None:
        stale = [key for key in using if key not in near]
        using = [key for key in using if key in near]
        if visible is not None:
            later = [key for key in using if key not in visible]
            using = [key for key in using if key in visible]
    fragments = [name for key in using for name in fragments_of([key], None if key in waiting else changed)]
    computed = st.session_state.get(_COMPUTED, set())
    return CommitPlan(using, stale + later, later, [name for name in fragments if name in computed],
                      [name for name in fragments if name not in computed])  # fmt: skip


def apply_commit(plan: CommitPlan) -> None:
    """Note what ``plan`` leaves stale and compute its parts' words, for the sidebar's rerun (or the commit's
    answer, ui.commit_http) to send."""
    stale = st.session_state.setdefault(_STALE, set())
    stale.update(plan.stale)
    st.session_state.setdefault(_LATER, set()).update(plan.later)
    if plan.computed:
        from ui.words import compute_words  # ui.words draws inside sections

        compute_words(plan.computed)
    stale.difference_update(plan.using)  # a section drawn in parts is not run itself
    st.session_state.setdefault(_LATER, set()).difference_update(plan.using)


def rerun_sections(
    changed: Iterable[str], also: Iterable[str] = (), near=None, visible=None, default: str | None = None
) -> None:
    """From a callback: rerun the sidebar, the sections that read ``changed`` and the fragments keyed ``also``,
    instead of the page. ``near``: the sections the browser has within a screen of its viewport (a list of keys,
    :func:`named_sections`); the others that read ``changed`` wait, stale, until the browser asks for them.
    ``visible`` (with ``near``): those of them in the viewport; only those rerun now, the rest of ``near`` wait as
    "later" (:func:`later_sections`). ``default``: the fragment the interaction reruns anyway (the sidebar's, for
    its commit): when it is all there is to rerun, no rerun is asked for (Streamlit would end this run and start
    another for it)."""
    plan = plan_commit(changed, near, visible)
    apply_commit(plan)
    wanted = list(dict.fromkeys([SIDEBAR_KEY, *plan.rerun, *also]))
    if wanted != [default]:
        st.rerun(wanted)


def rerun_section(key: str) -> None:
    """From a callback of a widget in one of its parts: rerun the section keyed ``key`` whole (the widget changed
    what the section's other parts read), not only that part."""
    st.rerun([key])


def plan_refresh(raw) -> CommitPlan:
    """What asking for the stale sections ``raw`` (a list of keys; one not stale is ignored) does, changing nothing
    yet: they draw anew, their parts' words computed and their other fragments rerun."""
    stale = st.session_state.get(_STALE, set())
    asked = [key for key in dict.fromkeys(named_sections(raw) or ()) if key in stale]
    fragments, computed = fragments_of(asked), st.session_state.get(_COMPUTED, set())
    return CommitPlan(asked, [], [], [name for name in fragments if name in computed],
                      [name for name in fragments if name not in computed])  # fmt: skip


def refresh_sections(raw) -> None:
    """From a callback: the browser has stale sections near its viewport again (a list of keys): rerun those that
    are stale, and the sidebar (its data lists what is still stale); a key that is not stale is ignored."""
    plan = plan_refresh(raw)
    apply_commit(plan)  # before the sidebar's rerun, which lists what is still stale
    if plan.rerun:
        st.rerun([SIDEBAR_KEY, *plan.rerun])
