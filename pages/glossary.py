"""Glossary: every term of the app in English, 한국어 and 中文, side by side, straight from the term base
(locales/terms.toml), with its one-line definition from the catalog of the language the reader picked."""

import streamlit as st

from ui.i18n import LANGUAGES, catalog
from ui.language import current_language, t
from ui.shared import use_shared_controls
from ui.terms import glossary_concepts, term_label

DEFINITIONS_PREFIX = "glossary.definitions."

use_shared_controls()
st.title(t("glossary.title"))
st.write(t("glossary.intro"))

lang = current_language()
rows = [
    {name: term_label(code, concept) for code, name in LANGUAGES.items()}
    | {t("glossary.column_definition"): catalog(lang)[DEFINITIONS_PREFIX + concept]}
    for concept in glossary_concepts()
]
st.table(rows, hide_index=True, border="horizontal")  # a table, not a dataframe: it wraps the definitions
