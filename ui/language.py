"""The student's language: chosen in the sidebar on every page, kept for the session and in the URL (``?lang=ko``)."""

from __future__ import annotations

import streamlit as st

from ui.i18n import DEFAULT_LANGUAGE, LANGUAGES, language_from, text

LANGUAGE_STORE = "shared_lang"
LANGUAGE_WIDGET = "shared_lang_widget"
NOTICES = "shared_url_notices"  # (catalog key, params) pairs to show once, in the student's language


def init_language() -> None:
    """On a session's first run, take the language from ``?lang=`` (validated) or use English."""
    if LANGUAGE_STORE in st.session_state:
        return
    code = DEFAULT_LANGUAGE
    if "lang" in st.query_params:
        code, valid = language_from(st.query_params.get_all("lang"))
        if not valid:
            st.session_state.setdefault(NOTICES, []).append(("notices.bad_language", {}))
    st.session_state[LANGUAGE_STORE] = code


def current_language() -> str:
    return st.session_state.get(LANGUAGE_STORE, DEFAULT_LANGUAGE)


def t(key: str, **params) -> str:
    """``key`` from the catalog of the student's language (English where it is missing)."""
    return text(current_language(), key, **params)


def language_switcher() -> None:
    """English / 한국어 / 中文 at the top of the sidebar."""
    st.session_state[LANGUAGE_WIDGET] = current_language()
    st.sidebar.segmented_control(
        t("app.language_label"),
        options=list(LANGUAGES),
        format_func=LANGUAGES.get,
        key=LANGUAGE_WIDGET,
        on_change=_commit,
        label_visibility="collapsed",
    )


def _commit() -> None:
    chosen = st.session_state.get(LANGUAGE_WIDGET)
    if chosen in LANGUAGES:  # clicking the chosen option again deselects it: keep the language then
        st.session_state[LANGUAGE_STORE] = chosen
