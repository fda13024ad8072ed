"""The "What to notice" caption under a section's picture, the same on every page."""

import streamlit as st

from ui.language import t


def notice(key: str, **params) -> None:
    """A caption: the bold lead-in "What to notice", then the catalog string ``key`` filled with ``params``, both in
    the student's language."""
    st.caption(notice_text(key, **params))


def notice_text(key: str, **params) -> str:
    """The notice's words: "What to notice" in bold, then the catalog string ``key`` filled with ``params``."""
    return f"**{t('common.what_to_notice')}** {t(key, **params)}"
