"""Home: why attention needs positions — reorder a sentence and, without positions, nothing changes but the order."""

import streamlit as st

from charts.home import comparison
from posenc.permutation import MAX_TOKENS, output_differences, single_head_self_attention
from ui.code import show_code
from ui.figure import figure_chart
from ui.language import current_language, t
from ui.menu import next_pages
from ui.notice import notice
from ui.shared import use_shared_controls

use_shared_controls()
st.title(t("home.title"))
st.write(t("home.intro"))

st.subheader(t("home.demo_header"))
left, right = st.columns(2)
lang = current_language()
# keys per language, so switching language shows that language's example pair
text_a = left.text_input(t("home.sentence_a"), t("home.default_a"), key=f"home_sentence_a_{lang}", max_chars=200)
text_b = right.text_input(t("home.sentence_b"), t("home.default_b"), key=f"home_sentence_b_{lang}", max_chars=200)

try:
    shown = comparison(lang, text_a, text_b)
except ValueError:
    st.info(t("home.bad_pair", max_tokens=MAX_TOKENS, default_a=t("home.default_a"), default_b=t("home.default_b")))
    st.stop()

figure_chart(shown.attention, key="home_attention")
notice("home.attention_notice")
st.latex(
    r"\operatorname{Attention}(PX) = P\,\operatorname{Attention}(X)"
    rf"\quad\text{{{t('home.permutation_formula_text')}}}\ P"
)
figure_chart(shown.changes, key="home_changes")
st.markdown(t("home.largest_change", largest=f"{shown.largest_change_without_pe:.1e}"))
show_code(single_head_self_attention, output_differences)

st.subheader(t("home.next_header"))
for page in next_pages():
    st.page_link(page.path, label=t(page.title_key), icon=page.icon)
    st.caption(t(page.blurb_key))
st.caption(t("home.shared_note"))
