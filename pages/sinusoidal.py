"""Sinusoidal absolute encoding: the table, its waves, its dot products, its shift rotation, and the alternatives."""

import streamlit as st
import torch

from figures import absolute as fig
from posenc.absolute import (
    SINUSOID_LAYOUTS,
    LearnedPositionalEmbedding,
    embedding_pe_cosines,
    integer_positions,
    normalized_positions,
    seeded_learned_embedding,
    sinusoid_offset_similarity,
    sinusoid_pair_columns,
    sinusoid_wavelengths,
    sinusoidal,
    sinusoidal_shift_matrix,
    sinusoidal_shift_residual,
    sinusoidal_similarity,
    sinusoidal_similarity_row,
)
from ui.code import show_code
from ui.i18n import text
from ui.language import current_language, t
from ui.shared import use_shared_controls

COSINE_DIMS = (2, 8, 32, 128, 512)  # the dimensions compared in "why add", plus the current dim
SHIFT_LATEX = (
    r"\begin{pmatrix}\sin((p+k)\omega_i)\\ \cos((p+k)\omega_i)\end{pmatrix} = "
    r"\begin{pmatrix}\cos k\omega_i & \sin k\omega_i\\ -\sin k\omega_i & \cos k\omega_i\end{pmatrix}"
    r"\begin{pmatrix}\sin p\omega_i\\ \cos p\omega_i\end{pmatrix}"
)


@st.cache_resource(max_entries=8)  # 16 MB at 4096 × 1024: shared read-only, not unpickled on every rerun
def _table(length: int, dim: int, base: float, layout: str):
    table = sinusoidal(length, dim, base, layout=layout).numpy()
    table.flags.writeable = False  # shared by every session: nobody may change it
    return table


def _labels(lang: str) -> dict[str, str]:
    """The figures' words in ``lang`` (called only when a cached figure is built, so the language is in its key)."""
    return {name: text(lang, f"sinusoidal.fig_{name}") for name in fig.LABEL_NAMES}


# Figures are cached whole, keyed by the scalar inputs and the language: building a Plotly figure costs more than its
# math, and a cached figure is shared by every session. st.plotly_chart only reads a figure (it serialises a copy).
@st.cache_resource(max_entries=32)
def _table_figure(length: int, dim: int, base: float, layout: str, lang: str):
    return fig.pe_heatmap(_table(length, dim, base, layout), layout, _labels(lang))


@st.cache_resource(max_entries=32)
def _waves_figure(length: int, dim: int, base: float, layout: str, columns: tuple[int, ...], lang: str):
    pairs = sinusoid_pair_columns(dim, layout).numpy()
    return fig.waves_figure(_table(length, dim, base, layout), columns, pairs, _labels(lang))


@st.cache_resource(max_entries=32)
def _wavelength_figure(length: int, dim: int, base: float, lang: str):
    return fig.wavelength_figure(sinusoid_wavelengths(dim, base), length, _labels(lang))


@st.cache_resource(max_entries=32)
def _similarity_figure(length: int, dim: int, base: float, lang: str):
    block = fig.similarity_block(length)
    matrix = sinusoidal_similarity(length, dim, base, block=block).numpy()
    return fig.similarity_heatmap(matrix, block, length, _labels(lang))


@st.cache_resource(max_entries=32)
def _similarity_row_figure(row: int, length: int, dim: int, base: float, lang: str):
    """The figure and the diagonal entry PE(p)·PE(p)."""
    dots = sinusoidal_similarity_row(row, length, dim, base).numpy()
    closed = sinusoid_offset_similarity(row, length, dim, base).numpy()
    return fig.similarity_row_figure(dots, closed, row, _labels(lang)), float(dots[row])


@st.cache_resource(max_entries=32)
def _shift_figures(offset: int, length: int, dim: int, base: float, layout: str, lang: str):
    """The matrix figure, the residual figure and the largest residual."""
    matrix = sinusoidal_shift_matrix(offset, dim, base, layout).numpy()
    residual = sinusoidal_shift_residual(offset, length, dim, base, layout).numpy()
    pairs, labels = sinusoid_pair_columns(dim, layout).numpy(), _labels(lang)
    matrix_figure = fig.shift_matrix_figure(matrix, pairs, offset, labels)
    return matrix_figure, fig.shift_residual_figure(residual, offset, labels), residual.max()


@st.cache_resource(max_entries=32)
def _naive_figure(short: int, length: int, dim: int, base: float, layout: str, lang: str):
    """The figure, the last integer position, and token 1's normalised position in the short and the long input."""
    integers = integer_positions(length)[:, 0].numpy()
    norm_short, norm_long = normalized_positions(short)[:, 0].numpy(), normalized_positions(length)[:, 0].numpy()
    pe_short, pairs = sinusoidal(short, dim, base, layout=layout).numpy(), sinusoid_pair_columns(dim, layout).numpy()
    pe_long = _table(length, dim, base, layout)
    figure = fig.naive_figure(integers, norm_short, norm_long, pe_short, pe_long, pairs, _labels(lang))
    return figure, integers[-1], norm_short[1], norm_long[1]


@st.cache_resource(max_entries=32)
def _cosine_figure(length: int, dim: int, base: float, lang: str):
    dims = tuple(sorted({*COSINE_DIMS, dim}))
    cosines = embedding_pe_cosines(dims, samples=1500, max_position=length, base=base).numpy()
    return fig.cosine_histogram_figure(cosines, dims, _labels(lang))


@st.cache_resource(max_entries=4)  # a model: shared, not copied
def _learned(max_len: int, dim: int):
    return seeded_learned_embedding(max_len, dim)


@st.cache_resource(max_entries=32)
def _learned_figure(position: int, max_len: int, dim: int, base: float, layout: str, lang: str):
    """The figure and whether the table refused ``position`` (it has no row for it)."""
    try:
        learned = _learned(max_len, dim)(torch.tensor([position]))[0].detach().numpy()
    except ValueError:  # the table's own message is English: the page says it in the student's language
        learned = None
    sine = sinusoidal(position + 1, dim, base, layout=layout)[-1].numpy()
    return fig.position_vector_figure(sine, learned, position, max_len, _labels(lang)), learned is None


def notice(sentence: str) -> None:
    """The section's "What to notice" caption."""
    st.caption(f"**{t('common.what_to_notice')}** {sentence}")


def table_section(length: int, dim: int, base: float, lang: str) -> str:
    """The table and its layout choice; not a fragment: every section below draws the chosen layout."""
    st.subheader(t("sinusoidal.table_header"))
    names = {name: t(f"sinusoidal.layout_{name}") for name in SINUSOID_LAYOUTS}  # a plain dict: no state read later
    layout = st.radio(
        t("sinusoidal.layout_label"), SINUSOID_LAYOUTS, format_func=names.get, horizontal=True, key="sin_layout"
    )
    st.plotly_chart(_table_figure(length, dim, base, layout, lang), key="sin_table_chart")
    st.latex(
        r"PE(p, 2i) = \sin(p\,\omega_i),\quad PE(p, 2i+1) = \cos(p\,\omega_i),\quad \omega_i = \text{base}^{-2i/d}"
    )
    notice(t("sinusoidal.table_notice"))
    show_code(sinusoidal)
    return layout


@st.fragment
def waves_section(length: int, dim: int, base: float, layout: str, lang: str) -> None:
    """Chosen columns and the wavelengths; a fragment, so its choice reruns only this section."""
    st.subheader(t("sinusoidal.waves_header"))
    defaults = sorted({0, 1, dim // 4, dim // 2} & set(range(dim)))
    kept = [d for d in st.session_state.get("sin_wave_dims", defaults) if d < dim]
    st.session_state["sin_wave_dims"] = kept  # drop dimensions that a smaller dim no longer has
    columns = st.multiselect(t("sinusoidal.wave_dims_label"), range(dim), key="sin_wave_dims")
    left, right = st.columns(2)
    with left:
        if columns:
            st.plotly_chart(_waves_figure(length, dim, base, layout, tuple(columns), lang), key="sin_waves_chart")
        else:
            st.info(t("sinusoidal.pick_a_dimension"))
    right.plotly_chart(_wavelength_figure(length, dim, base, lang), key="sin_wavelength_chart")
    st.latex(r"\omega_i = \text{base}^{-2i/d},\qquad \lambda_i = \frac{2\pi}{\omega_i} = 2\pi\cdot\text{base}^{2i/d}")
    notice(t("sinusoidal.waves_notice"))
    show_code(sinusoid_wavelengths)


@st.fragment
def similarity_section(length: int, dim: int, base: float, lang: str) -> None:
    """PE·PEᵀ and one of its rows; a fragment, so the row slider reruns only this section."""
    st.subheader(t("sinusoidal.similarity_header"))
    row = st.slider(t("sinusoidal.similarity_row_label"), 0, length - 1, length // 2, key="sin_sim_row")
    left, right = st.columns(2)
    left.plotly_chart(_similarity_figure(length, dim, base, lang), key="sin_similarity_chart")
    row_figure, diagonal = _similarity_row_figure(row, length, dim, base, lang)
    right.plotly_chart(row_figure, key="sin_similarity_row_chart")
    st.latex(
        r"PE(p)\cdot PE(q) = \sum_{i} \sin p\omega_i \sin q\omega_i + \cos p\omega_i \cos q\omega_i"
        r" = \sum_{i} \cos((q-p)\,\omega_i)"
    )
    notice(t("sinusoidal.similarity_notice", diagonal=f"{diagonal:.0f}"))
    show_code(sinusoidal_similarity, sinusoid_offset_similarity)


@st.fragment
def shift_section(length: int, dim: int, base: float, layout: str, lang: str) -> None:
    """The shift matrix M_k and its error; a fragment, so its slider reruns only this section."""
    st.subheader(t("sinusoidal.shift_header"))
    offset = st.slider(t("sinusoidal.shift_label"), 0, 256, 4, key="sin_shift_k")
    matrix_figure, residual_figure, largest = _shift_figures(offset, length, dim, base, layout, lang)
    left, right = st.columns(2)
    left.plotly_chart(matrix_figure, key="sin_shift_matrix_chart")
    with right:
        st.metric(t("sinusoidal.shift_metric", offset=offset, length=length), f"{largest:.1e}")
        st.plotly_chart(residual_figure, key="sin_shift_residual_chart")
    st.latex(SHIFT_LATEX)
    notice(t("sinusoidal.shift_notice"))
    show_code(sinusoidal_shift_matrix, sinusoidal_shift_residual)


@st.fragment
def naive_section(length: int, dim: int, base: float, layout: str, lang: str) -> None:
    """Integers, normalised positions and the sinusoid; a fragment (its slider reruns only it)."""
    st.subheader(t("sinusoidal.naive_header"))
    short = st.slider(t("sinusoidal.naive_short_label"), 2, 64, 5, key="sin_naive_short")
    figure, last, token_short, token_long = _naive_figure(short, length, dim, base, layout, lang)
    st.plotly_chart(figure, key="sin_naive_chart")
    st.latex(r"PE_\text{int}(p) = p \qquad PE_\text{norm}(p) = \frac{p}{L-1} \qquad PE(p, 2i) = \sin(p\,\omega_i)")
    numbers = {"last": f"{last:.0f}", "token_short": f"{token_short:.3g}", "token_long": f"{token_long:.3g}"}
    notice(t("sinusoidal.naive_notice", short=short, length=length, **numbers))
    show_code(integer_positions, normalized_positions)


def add_section(length: int, dim: int, base: float, lang: str) -> None:
    """Random words against positions; no widgets of its own, so no fragment."""
    st.subheader(t("sinusoidal.add_header"))
    st.plotly_chart(_cosine_figure(length, dim, base, lang), key="sin_cosine_chart")
    where = t("sinusoidal.add_formula_where")
    st.latex(
        r"\cos(w, PE(p)) = \frac{w\cdot PE(p)}{\lVert w\rVert\,\lVert PE(p)\rVert}"
        rf" \approx \mathcal{{N}}(0, 1/d) \text{{ {where} }} w \sim \mathcal{{N}}(0, I_d)"
    )
    notice(t("sinusoidal.add_notice"))
    show_code(embedding_pe_cosines)


@st.fragment
def learned_section(dim: int, base: float, layout: str, lang: str) -> None:
    """A learned table beside the formula; a fragment, so its sliders rerun only this section."""
    st.subheader(t("sinusoidal.learned_header"))
    st.markdown(t("sinusoidal.learned_intro"))
    left, right = st.columns(2)
    max_len = left.slider(t("sinusoidal.learned_max_len_label"), 2, 1024, 512, key="sin_learned_max_len")
    position = right.slider(t("sinusoidal.learned_position_label"), 0, 2048, 100, key="sin_learned_position")
    figure, refused = _learned_figure(position, max_len, dim, base, layout, lang)
    parameters = _learned(max_len, dim).table.weight.numel()
    if refused:
        message = t("sinusoidal.learned_refused", last=max_len - 1, max_len=max_len, position=position)
        st.error(message, icon=":material/block:")
    st.plotly_chart(figure, key="sin_learned_chart")
    st.latex(r"x_p = w_p + E[p],\qquad E \in \mathbb{R}^{\text{max\_len} \times d},\quad p < \text{max\_len}")
    notice(t("sinusoidal.learned_notice", parameters=f"{parameters:,}", max_len=max_len))
    show_code(LearnedPositionalEmbedding, seeded_learned_embedding)


shared = use_shared_controls("base", "dim", "length")
base, dim, length = float(shared["base"]), int(shared["dim"]), int(shared["length"])
lang = current_language()
st.title(t("sinusoidal.title"))
st.markdown(t("sinusoidal.intro"))
layout = table_section(length, dim, base, lang)
waves_section(length, dim, base, layout, lang)
similarity_section(length, dim, base, lang)
shift_section(length, dim, base, layout, lang)
naive_section(length, dim, base, layout, lang)
add_section(length, dim, base, lang)
learned_section(dim, base, layout, lang)
