"""Glossary: every term of the app in English, 한국어 and 中文, side by side, straight from the three catalogs."""

import pandas as pd
import streamlit as st

from ui.i18n import LANGUAGES, catalog
from ui.language import t
from ui.shared import use_shared_controls

TERMS_PREFIX = "glossary.terms."

use_shared_controls()
st.title(t("glossary.title"))
st.write(t("glossary.intro"))

keys = [key for key in catalog("en") if key.startswith(TERMS_PREFIX)]
rows = [{name: catalog(lang)[key] for lang, name in LANGUAGES.items()} for key in keys]
st.table(pd.DataFrame(rows).set_index(LANGUAGES["en"]))  # a static table: its cells wrap, so it fits any column
