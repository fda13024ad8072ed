"""Glossary: every term of the app in English, 한국어 and 中文, side by side, straight from the three catalogs, with
its one-line definition in the language the reader picked."""

import streamlit as st

from ui.i18n import LANGUAGES, catalog
from ui.language import current_language, t
from ui.shared import use_shared_controls

TERMS_PREFIX = "glossary.terms."
DEFINITIONS_PREFIX = "glossary.definitions."

use_shared_controls()
st.title(t("glossary.title"))
st.write(t("glossary.intro"))

lang = current_language()
terms = [key.removeprefix(TERMS_PREFIX) for key in catalog("en") if key.startswith(TERMS_PREFIX)]
rows = [
    {name: catalog(code)[TERMS_PREFIX + term] for code, name in LANGUAGES.items()}
    | {t("glossary.column_definition"): catalog(lang)[DEFINITIONS_PREFIX + term]}
    for term in terms
]
st.table(rows, hide_index=True, border="horizontal")  # a table, not a dataframe: it wraps the definitions
