"""Glossary: every term of the app in English, 한국어 and 中文, side by side, straight from the term base
(locales/terms.toml), with its one-line definition from the catalog of the language the reader picked."""

import streamlit as st

from figures.table import Table
from ui.i18n import LANGUAGES, catalog
from ui.language import current_language, t
from ui.shared import use_shared_controls
from ui.table import table
from ui.terms import glossary_concepts, term_label

DEFINITIONS_PREFIX = "glossary.definitions."

use_shared_controls()
st.title(t("glossary.title"))
st.write(t("glossary.intro"))

lang = current_language()
columns = [*LANGUAGES.values(), t("glossary.column_definition")]
rows = [
    [*(term_label(code, concept) for code in LANGUAGES), catalog(lang)[DEFINITIONS_PREFIX + concept]]
    for concept in glossary_concepts()
]
table(Table.of(columns, rows), lines="horizontal", langs=[*LANGUAGES, lang])  # the definitions wrap
