"""The 2-D positions section of "RoPE layer by layer": a patch grid under chunked M-RoPE (Qwen2-VL), interleaved
M-RoPE (Qwen3-VL) and axial 2-D RoPE (a vision encoder). One query patch's score s(q, n) = (1/P)·Σ_i cos(φ_i(n) −
φ_i(q)) against every patch, and the strip of which axis owns each pair."""

import streamlit as st

from charts.patch_grid import axes_chart, axis_counts, drop_question, grid_chart, lowest_score
from posenc.patch_grid import LAYOUTS, MAX_SIDE, patch_scores
from ui.checkpoint import checkpoint
from ui.code import show_code
from ui.figure import figure_chart
from ui.language import t
from ui.notice import notice


def drop_checkpoint() -> None:
    """Predict first: how far below 1 does Qwen2-VL's score fall anywhere on a 16 × 16 grid?"""
    asked = drop_question()
    choices = {band: t(f"patch_grid.cp_drop_{band}") for band in asked.choices}
    checkpoint("cp_layers_patch", t("patch_grid.cp_question", **asked.facts), choices, asked.correct,
               t("patch_grid.cp_right", **asked.facts), t("patch_grid.cp_wrong", **asked.facts))  # fmt: skip


def picked(key: str, side: int) -> None:
    """Keep a row or column picked on a bigger grid inside a smaller one."""
    if st.session_state.get(key, 0) >= side:
        st.session_state[key] = side - 1


def patch_section(lang: str) -> None:
    st.subheader(t("patch_grid.header"))
    st.markdown(t("patch_grid.intro"))
    drop_checkpoint()
    # the names are read now: a format_func that calls t() later would word a replayed widget in another language
    names = {name: t(f"patch_grid.{name}") for name in LAYOUTS}
    layout = st.radio(t("patch_grid.layout_label"), list(LAYOUTS), format_func=names.get,
                      key="rope_layers_patch_layout")  # fmt: skip
    side = st.slider(t("patch_grid.side_label"), 2, MAX_SIDE // 2, 16, key="rope_layers_patch_side")
    left, right = st.columns(2)
    picked("rope_layers_patch_row", side)
    picked("rope_layers_patch_column", side)
    row = left.slider(t("patch_grid.row_label"), 0, side - 1, side // 2, key="rope_layers_patch_row")
    column = right.slider(t("patch_grid.column_label"), 0, side - 1, side // 2, key="rope_layers_patch_column")
    figure_chart(grid_chart(lang, layout, side, row, column), key="rope_layers_patch_chart")
    st.latex(r"s(q,n)=\frac1P\sum_{i<P}\cos\big(\varphi_i(n)-\varphi_i(q)\big),\quad\varphi_i(n)=p_{a(i)}(n)\,\theta_i")
    figure_chart(axes_chart(lang, layout), key="rope_layers_patch_axes")
    counts = axis_counts(layout)
    notice(f"patch_grid.notice_{layout}", low=f"{lowest_score(layout, side, row, column):.4f}", **counts)
    show_code(patch_scores)
