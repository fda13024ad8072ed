"""The shared controls (base, dim, length, heads): one value per session, kept across pages and mirrored in the URL.

A page calls ``use_shared_controls("base", "dim")`` first and gets the current values back. Values live in plain
session-state keys (``shared_dim`` …), so they survive pages that do not draw the control. The sidebar's controls
are browser sliders (``static/shared_controls.js``): while a thumb moves they set the tab's store, and every live
picture follows with nothing sent; on release the browser commits the values once (:func:`commit_shared_values`),
validated exactly as a link's values are (:mod:`ui.query`). On a session's first run the URL's values are validated
the same way (clamped, snapped, or replaced by the default, with a notice). After every run the URL shows the
current values, so a teacher can share the exact view. Because each page sets this up itself, a page also runs on
its own (``AppTest.from_file("pages/x.py")``); a test commits values as the browser does with
``st.session_state[COMMIT] = {"dim": 8}`` before a run.
"""

from __future__ import annotations

import math
import secrets
from collections.abc import Iterable

import streamlit as st

from ui.checkpoint import progress_line
from ui.component_data import component_data, forget_all_kept, forget_kept, kept_parts, packed_data
from ui.figure import forget_sent_figures
from ui.i18n import shown_values
from ui.language import NOTICES, current_language, init_language, language_switcher, t
from ui.lesson import init_lesson
from ui.limits import LIMITS, SHARED_NAMES, shared_default
from ui.presenter import (
    init_presenter,
    mirror_presenter_in_url,
    presenter_settings,
    presenter_toggle,
    presenter_view,
    presenting,
)
from ui.query import parse_shared_params
from ui.sections import (
    SIDEBAR_KEY,
    apply_commit,
    forget_sections,
    later_sections,
    plan_commit,
    plan_refresh,
    refresh_sections,
    rerun_sections,
    reruns_for,
    stale_sections,
)
from ui.static_files import STATIC_VERSION
from ui.words import forget_words, pending_words

COMMIT = "shared_commit"  # values committed outside the browser (a test), applied as the browser's commit is
_SEQ = "shared_commit_seq"  # the number of the browser's last commit stored: the browser resends a newer one
_KEY = "shared_controls"  # the sidebar element
# sent on every run: values, commit number, stale sections, the words a commit computed (ui.words)
SIDEBAR_EVERY_RUN = ("values", "seq", "stale", "later", "said")
_TAB = "shared_tab"  # the tab's token: its commits over HTTP name it (ui.commit_http)
_BY_SECTION = "shared_by_section"  # the page is built of ui.sections: a commit reruns only those that use it

LOADER_JS = """
export default function (component) {
  // static/shared_controls.js with the release's version (see ui/live.py's loader); it imports store.js with that
  // version, as live.js does, so the sidebar and every live chart of the tab share one store
  const script = new URL("app/static/shared_controls.js?v=STATIC_VERSION", window.location.href.replace(/[^/]*$/, ""));
  import(script.href).then((controls) => controls.render(component));
}
""".replace("STATIC_VERSION", STATIC_VERSION)

CSS = """
.shared-controls { font-family: var(--st-font, sans-serif); color: var(--st-text-color, #31333f); }
.control { margin: 0 0 1rem; }
.head { display: flex; align-items: center; gap: 0.4rem; font-size: 0.875rem; }
.head label { flex: 0 1 auto; }
.head output { margin-left: auto; font-variant-numeric: tabular-nums; font-weight: 600; }
.help-toggle { font: inherit; font-size: 0.75rem; width: 1.3rem; height: 1.3rem; padding: 0; border-radius: 50%;
               border: 1px solid currentColor; background: transparent; color: inherit; opacity: 0.6; cursor: help; }
input[type=range] { width: 100%; margin: 0.3rem 0 0; accent-color: var(--st-primary-color, #ff4b4b);
                    touch-action: none; }
.help { font-size: 0.8rem; opacity: 0.8; margin: 0.2rem 0 0; }
@media (pointer: coarse) {
  input[type=range] { height: 44px; }
  .help-toggle { width: 44px; height: 44px; border-radius: 22px; }
}
"""

_CONTROLS = st.components.v2.component("posenc_lab_shared", js=LOADER_JS, css=CSS)


def _store(name: str) -> str:
    return f"shared_{name}"


def init_shared_state() -> None:
    """On a session's first run, seed every shared value from the URL (validated) or its default; then apply values
    committed outside the browser (:data:`COMMIT`)."""
    if COMMIT in st.session_state:
        from ui.follow import after_commit

        after_commit(commit_shared_values(st.session_state.pop(COMMIT)))
    missing = [name for name in SHARED_NAMES if _store(name) not in st.session_state]
    if not missing:
        return
    in_url = {name: st.query_params.get_all(name) for name in SHARED_NAMES if name in st.query_params}
    values, notices = parse_shared_params(in_url)
    for name in missing:
        st.session_state[_store(name)] = values.get(name, shared_default(name))
    st.session_state.setdefault(NOTICES, []).extend(notices)


def shared_value(name: str) -> float | int:
    """Current value of a shared control; its default when the page runs outside the app."""
    return st.session_state.get(_store(name), shared_default(name))


def shared_controls(names: Iterable[str]) -> None:
    """Draw the sidebar's browser sliders for ``names`` (one element), each at its shared value."""
    names = [name for name in names if name in SHARED_NAMES]
    if not names:
        return
    controls = []
    for name in names:
        spec = {"name": name, "label": t(f"shared.{name}_label"), "help": t(f"shared.{name}_help")}
        if name == "base":
            spec["values"] = list(LIMITS.base_options)
        else:
            step = LIMITS.dim_step if name == "dim" else 1
            spec |= {"min": getattr(LIMITS, f"{name}_min"), "max": getattr(LIMITS, f"{name}_max"), "step": step}
        controls.append(spec)
    # every shared value, not only the page's: the tab compares them with its last commit after a reconnect
    data = {"controls": controls, "words": {"help": t("shared.help_word")}, "tab": commit_tab(),
            "stale": stale_sections(), "later": later_sections(),
            "values": {name: shared_value(name) for name in SHARED_NAMES}, "seq": st.session_state.get(_SEQ, 0),
            "said": pending_words()}  # fmt: skip
    sent = kept_parts(data, _KEY, SIDEBAR_EVERY_RUN)
    pictures = any("data" in said for said in data["said"])  # a commit's figures (ui.figure): their bytes
    with st.sidebar:  # a commit's rerun sends labels, help and grids only when they changed (the language)
        _CONTROLS(data=packed_data(sent) if pictures else component_data(sent), key=_KEY,
                  on_commit_change=_commit_from_browser, on_refresh_change=_refresh_from_browser,
                  on_missing_change=lambda: forget_kept(_KEY))  # fmt: skip


def _commit_from_browser() -> None:
    """The browser let go of a sidebar slider: store its values (validated) and the commit's number, mirror them in
    the URL, and rerun what uses them (:func:`follow_commit`)."""
    sent = (st.session_state.get(_KEY) or {}).get("commit")
    if not isinstance(sent, dict):
        return
    seq = sent.get("seq")
    if type(seq) is int and 0 < seq < 2**31:
        st.session_state[_SEQ] = seq
    follow_commit(commit_shared_values(sent.get("values")), near=sent.get("near"), default=SIDEBAR_KEY)


def tab_token() -> str:
    """This session's token, made once: the sidebar sends it to the browser, whose commits over HTTP name it
    (:mod:`ui.commit_http`, which keeps the session's context under it for as long as the session lives)."""
    from ui.commit_http import register_tab  # imported here: it imports this module's neighbours

    token = st.session_state.get(_TAB)
    if token is None:
        token = st.session_state[_TAB] = secrets.token_urlsafe(18)
    register_tab(token)
    return token


def commit_tab() -> str | None:
    """The token the browser's commits over HTTP name, or None where they never could be (presenter mode, a
    student following the teacher: :func:`commit_over_http`), so the browser commits through the sidebar at once."""
    return None if _commits_on_the_page() else tab_token()


def _commits_on_the_page() -> bool:
    """Whether a commit here must do what only a run can: a teacher publishes it and the settings caption changes
    (presenter mode); a student who follows the teacher explores from now on, and the follow line says so."""
    from ui.follow import following, line_to_rerun  # imported here: ui.follow imports this module's neighbours

    return presenting() or following() or bool(line_to_rerun())


def commit_over_http(sent) -> dict:
    """A commit the browser sent over HTTP (:mod:`ui.commit_http`; run with the session's context), or its ask for
    stale sections that came near (``{"refresh": keys}``), done here when nothing but words and pictures the commit
    computes must follow: the values stored (validated as the sidebar's commit is), the stale sections noted, and
    what the sidebar's rerun would have sent returned instead (``seq``, every shared value, ``said``, ``stale``,
    ``later``, ``rerun_for``). ``{"refused": True}`` (with ``rerun_for``) when a fragment must rerun (in a class, a
    checkpoint is one), or where only a run can commit (:func:`_commits_on_the_page`): the browser then commits
    through the sidebar, as :func:`_commit_from_browser` takes it. Nothing is stored before that is known."""
    if not isinstance(sent, dict) or not st.session_state.get(_BY_SECTION) or _commits_on_the_page():
        return {"refused": True}
    if "refresh" in sent:  # stale sections come near: ask for them, as the sidebar's trigger "refresh" does
        values, plan = {}, plan_refresh(sent["refresh"])
    else:
        values, _ = parse_shared_params(_as_link(sent.get("values")))
        values = {name: value for name, value in values.items() if st.session_state.get(_store(name)) != value}
        plan = plan_commit(set(values), near=sent.get("near"))
    if plan.rerun:
        return {"refused": True, "rerun_for": reruns_for()}
    seq = sent.get("seq")
    if values and type(seq) is int and 0 < seq < 2**31:
        st.session_state[_SEQ] = seq
    set_shared_values(values)
    apply_commit(plan)
    return {"seq": st.session_state.get(_SEQ, 0), "values": {name: shared_value(name) for name in SHARED_NAMES},
            "said": pending_words(), "stale": stale_sections(), "later": later_sections(),
            "rerun_for": reruns_for()}  # fmt: skip


def _refresh_from_browser() -> None:
    """Stale sections came near the browser's viewport: rerun them (:func:`ui.sections.refresh_sections`)."""
    if st.session_state.get(_BY_SECTION):
        refresh_sections((st.session_state.get(_KEY) or {}).get("refresh"))


def follow_commit(
    changed: set[str], by_teacher: bool = False, also: Iterable[str] = (), near=None, visible=None, default=None
) -> None:
    """From a callback, after shared values were committed: mirror them in the URL, tell class mode (a teacher's
    class follows the new values; a student who moved one explores, unless ``by_teacher``: the teacher's values a
    following student took, ui.follow), then rerun the sidebar, the sections that use ``changed`` (of them only
    those ``near`` the browser's viewport, when it named them, and of those only the ``visible`` ones when it named
    them too: ui.sections) and the fragments keyed ``also`` on a page built of sections, else the whole page.
    ``default``: the fragment the interaction reruns anyway (:func:`ui.sections.rerun_sections`)."""
    from ui.follow import after_commit, line_to_rerun  # imported here: ui.follow imports this module's neighbours

    mirror_in_url()
    if not by_teacher:
        after_commit(changed)
    if st.session_state.get(_BY_SECTION):
        also = dict.fromkeys([*line_to_rerun(), *also])  # a student who now explores: the follow line says so
        rerun_sections(changed, also=also, near=near, visible=visible, default=default)
    elif changed:
        st.rerun()


def commit_shared_values(raw) -> set[str]:
    """Store values the browser committed, validated as a link's are (:func:`set_shared_values`): only finite numbers
    are read; anything else (a string, a list, a bool, NaN, a forged name) is dropped, never stored. Returns the
    names whose stored value changed."""
    return set_shared_values({name: raw[name] for name in _as_link(raw)})


def _as_link(raw) -> dict[str, list[str]]:
    """The finite numbers of ``raw`` (a dict the browser sent) named after shared values, as a link's parameters
    (``{name: [text]}``); anything else (a string, a list, a bool, NaN, a forged name) is dropped."""
    if not isinstance(raw, dict):
        return {}
    numbers = {name: raw[name] for name in SHARED_NAMES if type(raw.get(name)) in (int, float)}
    return {name: [str(value)] for name, value in numbers.items() if math.isfinite(value)}


def use_shared_controls(*names: str, by_section: bool = False) -> dict[str, float | int]:
    """Set up the shared state, draw the language switcher, the sidebar controls ``names``, the presenter toggle and
    the checkpoints answered, mirror the URL; in presenter mode, show the settings ``names`` at the top.
    ``by_section``: every part of the page that reads a shared value is a :func:`ui.sections.section`, so a commit
    reruns only those (else the whole page).

    Returns every shared value.
    """
    init_language()
    init_shared_state()
    init_presenter()
    init_lesson()  # a lesson link's first step sets the values this run draws with (ui/lesson.py)
    forget_sections()
    forget_words()
    forget_all_kept()  # a full run may draw every element anew: each is sent all its data (ui.component_data)
    forget_sent_figures()  # and each figure whole (ui.figure)
    from ui.follow import join_teacher_page  # imported here: ui.follow imports this module's neighbours

    join_teacher_page()  # a following tab that opened the teacher's page: the class's values
    st.session_state[_BY_SECTION] = by_section
    language_switcher()
    sidebar_section(tuple(names))
    presenter_toggle()
    progress_line()
    mirror_in_url()
    show_url_notices()
    values = {name: shared_value(name) for name in SHARED_NAMES}
    presenter_view()
    return values


@st.fragment(key=SIDEBAR_KEY)
def sidebar_section(names: tuple[str, ...]) -> None:
    """The sidebar's controls ``names`` and, in presenter mode, the settings caption: rerun with every commit."""
    shared_controls(names)
    presenter_settings(names, {name: shared_value(name) for name in names})


def set_shared_values(raw: dict) -> set[str]:
    """Store shared values sent by the browser (a live chart's settled sliders), validated as a link's are: a value
    that is out of range, malformed or not on the grid is corrected or dropped, never stored as sent. Returns the
    names whose stored value changed."""
    in_url = {name: [str(raw[name])] for name in SHARED_NAMES if name in raw}
    values, _ = parse_shared_params(in_url)
    changed = set()
    for name, value in values.items():
        if st.session_state.get(_store(name)) != value:
            changed.add(name)
        st.session_state[_store(name)] = value
    return changed


def mirror_in_url() -> None:
    """Write every shared value, the language and presenter mode into the query string (only what changed: fewer
    messages)."""
    wanted = {"lang": current_language()}
    for name in SHARED_NAMES:
        value = shared_value(name)
        wanted[name] = str(int(value)) if float(value).is_integer() else str(value)
    for name, text in wanted.items():
        if st.query_params.get(name) != text:
            st.query_params[name] = text
    mirror_presenter_in_url()


def show_url_notices() -> None:
    """Show, once, what was corrected in the link the session was opened with, in the student's language."""
    lang = current_language()
    for key, params in st.session_state.pop(NOTICES, []):
        st.warning(t(key, **shown_values(lang, params)), icon=":material/link_off:")
