"""Presenter mode (``?present=1`` or the sidebar toggle): for a projector in front of a class.

Larger text and thicker chart lines, the sidebar collapsed when the link opens, the page's settings as a caption at
the top (so the back row can read them), and checkpoint answers held back until the presenter presses "Reveal". It
is kept for the session and mirrored in the URL like the shared controls, so a teacher's link opens every student
on the same view.
"""

from __future__ import annotations

from collections.abc import Iterable

import streamlit as st

from ui.i18n import shown_values
from ui.language import current_language, t
from ui.limits import shared_default

PRESENT_STORE = "shared_present"
PRESENT_WIDGET = "shared_present_widget"

# Fixed CSS, nothing from a visitor or the URL in it: larger text; the figures (static/figure.js, in shadow roots of
# their own) read --posenc-presenting and draw thicker lines and larger tick texts.
PRESENTER_CSS = """<style>
[data-testid="stMain"] [data-testid="stMarkdownContainer"] p,
[data-testid="stMain"] [data-testid="stMarkdownContainer"] li,
[data-testid="stMain"] [data-testid="stWidgetLabel"] p { font-size: 1.3rem; }
[data-testid="stMain"] [data-testid="stCaptionContainer"] { font-size: 1.1rem; }
[data-testid="stMain"] h1 { font-size: 3rem; }
:root { --posenc-presenting: 1; }
</style>"""


def url_asks_to_present() -> bool:
    """Whether the link says ``?present=1`` (anything else, or nothing, means no)."""
    return st.query_params.get("present", "") == "1"


def init_presenter() -> None:
    """On a session's first run, take presenter mode and the class (``?class=``, ui/classroom.py) from the link."""
    if PRESENT_STORE not in st.session_state:
        st.session_state[PRESENT_STORE] = url_asks_to_present()
    from ui.classroom import init_class  # ui.classroom reads presenting(): imported here, not at the top

    init_class()


def presenting() -> bool:
    """Whether this session is in presenter mode (also read by ``navigation.py`` before a page runs)."""
    return bool(st.session_state.get(PRESENT_STORE, url_asks_to_present()))


def presenter_toggle() -> None:
    """The sidebar toggle, seeded from and writing back to the session's presenter mode."""
    st.session_state[PRESENT_WIDGET] = presenting()
    st.sidebar.toggle(t("presenter.toggle_label"), key=PRESENT_WIDGET, help=t("presenter.toggle_help"),
                      on_change=_commit)  # fmt: skip


def _commit() -> None:
    st.session_state[PRESENT_STORE] = bool(st.session_state[PRESENT_WIDGET])


def mirror_presenter_in_url() -> None:
    """``present=1`` in the link while presenting, nothing otherwise; ``class=<code>`` while in a class."""
    if presenting():
        if st.query_params.get("present") != "1":
            st.query_params["present"] = "1"
    elif "present" in st.query_params:
        del st.query_params["present"]
    from ui.classroom import mirror_class_in_url

    mirror_class_in_url()


def presenter_view() -> None:
    """In presenter mode: the larger style (the settings caption is :func:`presenter_settings`, which the sidebar's
    section draws). In presenter mode or a class: the class panel (start a class, its join link and QR code;
    ui/classroom.py), following the teacher (ui/follow.py) and the lesson (ui/lesson.py)."""
    from ui.classroom import browser_identity, class_panel
    from ui.follow import note_full_run
    from ui.lesson import lesson_bar

    browser_identity()
    note_full_run()  # a teacher's class follows this page; a student who opened another page explores
    class_panel()
    lesson_bar()  # presenter mode: the lesson panel; a lesson link walked alone: Previous / Next
    if presenting():
        st.html(PRESENTER_CSS)


def presenter_settings(names: Iterable[str], values: dict) -> None:
    """In presenter mode, the page's settings ``names`` as one caption ("base = 10,000 · dim = 128")."""
    names = list(names)
    if presenting() and names:
        shown = shown_values(current_language(), {name: values.get(name, shared_default(name)) for name in names})
        settings = " · ".join(f"{t(f'shared.{name}_label')} = {value}" for name, value in shown.items())
        st.caption(t("presenter.settings", settings=settings))
