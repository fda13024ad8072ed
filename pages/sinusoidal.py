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
from ui.shared import use_shared_controls

COSINE_DIMS = (2, 8, 32, 128, 512)  # the dimensions compared in "why add", plus the current dim
LAYOUT_NAMES = {"interleaved": "interleaved: sin, cos, sin, cos, …", "concat": "concat: all sines, then all cosines"}
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


# Figures are cached whole, keyed by the scalar inputs: building a Plotly figure costs more than its math, and a
# cached figure is shared by every session. st.plotly_chart only reads a figure (it serialises a copy).
@st.cache_resource(max_entries=32)
def _table_figure(length: int, dim: int, base: float, layout: str):
    return fig.pe_heatmap(_table(length, dim, base, layout), layout)


@st.cache_resource(max_entries=32)
def _waves_figure(length: int, dim: int, base: float, layout: str, columns: tuple[int, ...]):
    return fig.waves_figure(_table(length, dim, base, layout), columns, sinusoid_pair_columns(dim, layout).numpy())


@st.cache_resource(max_entries=32)
def _wavelength_figure(length: int, dim: int, base: float):
    return fig.wavelength_figure(sinusoid_wavelengths(dim, base), length)


@st.cache_resource(max_entries=32)
def _similarity_figure(length: int, dim: int, base: float):
    block = fig.similarity_block(length)
    return fig.similarity_heatmap(sinusoidal_similarity(length, dim, base, block=block).numpy(), block, length)


@st.cache_resource(max_entries=32)
def _similarity_row_figure(row: int, length: int, dim: int, base: float):
    """The figure and the diagonal entry PE(p)·PE(p)."""
    dots = sinusoidal_similarity_row(row, length, dim, base).numpy()
    closed = sinusoid_offset_similarity(row, length, dim, base).numpy()
    return fig.similarity_row_figure(dots, closed, row), float(dots[row])


@st.cache_resource(max_entries=32)
def _shift_figures(offset: int, length: int, dim: int, base: float, layout: str):
    """The matrix figure, the residual figure and the largest residual."""
    matrix = sinusoidal_shift_matrix(offset, dim, base, layout).numpy()
    residual = sinusoidal_shift_residual(offset, length, dim, base, layout).numpy()
    pairs = sinusoid_pair_columns(dim, layout).numpy()
    return fig.shift_matrix_figure(matrix, pairs, offset), fig.shift_residual_figure(residual, offset), residual.max()


@st.cache_resource(max_entries=32)
def _naive_figure(short: int, length: int, dim: int, base: float, layout: str):
    """The figure, the last integer position, and token 1's normalised position in the short and the long input."""
    integers = integer_positions(length)[:, 0].numpy()
    norm_short, norm_long = normalized_positions(short)[:, 0].numpy(), normalized_positions(length)[:, 0].numpy()
    pe_short, pairs = sinusoidal(short, dim, base, layout=layout).numpy(), sinusoid_pair_columns(dim, layout).numpy()
    pe_long = _table(length, dim, base, layout)
    figure = fig.naive_figure(integers, norm_short, norm_long, pe_short, pe_long, pairs)
    return figure, integers[-1], norm_short[1], norm_long[1]


@st.cache_resource(max_entries=32)
def _cosine_figure(length: int, dim: int, base: float):
    dims = tuple(sorted({*COSINE_DIMS, dim}))
    cosines = embedding_pe_cosines(dims, samples=1500, max_position=length, base=base).numpy()
    return fig.cosine_histogram_figure(cosines, dims)


@st.cache_resource(max_entries=4)  # a model: shared, not copied
def _learned(max_len: int, dim: int):
    return seeded_learned_embedding(max_len, dim)


@st.cache_resource(max_entries=32)
def _learned_figure(position: int, max_len: int, dim: int, base: float, layout: str):
    """The figure and, when the table has no row for ``position``, the reason."""
    try:
        learned, refused = _learned(max_len, dim)(torch.tensor([position]))[0].detach().numpy(), None
    except ValueError as err:
        learned, refused = None, str(err)
    sine = sinusoidal(position + 1, dim, base, layout=layout)[-1].numpy()
    return fig.position_vector_figure(sine, learned, position, max_len), refused


def table_section(length: int, dim: int, base: float) -> str:
    """The table and its layout choice; not a fragment: every section below draws the chosen layout."""
    st.subheader("The table PE[position, dimension]")
    layout = st.radio("Layout", SINUSOID_LAYOUTS, format_func=LAYOUT_NAMES.get, horizontal=True, key="sin_layout")
    st.plotly_chart(_table_figure(length, dim, base, layout), key="sin_table_chart")
    st.latex(
        r"PE(p, 2i) = \sin(p\,\omega_i),\quad PE(p, 2i+1) = \cos(p\,\omega_i),\quad \omega_i = \text{base}^{-2i/d}"
    )
    st.caption(
        "What to notice: each row is the vector added to the token at position p. Left columns change fast from row "
        "to row, right columns hardly change. **interleaved** puts sin, cos, sin, cos…; **concat** puts all sines "
        "first, then all cosines — the same numbers in another column order."
    )
    show_code(sinusoidal)
    return layout


@st.fragment
def waves_section(length: int, dim: int, base: float, layout: str) -> None:
    """Chosen columns and the wavelengths; a fragment, so its choice reruns only this section."""
    st.subheader("Each dimension is a wave")
    defaults = sorted({0, 1, dim // 4, dim // 2} & set(range(dim)))
    kept = [d for d in st.session_state.get("sin_wave_dims", defaults) if d < dim]
    st.session_state["sin_wave_dims"] = kept  # drop dimensions that a smaller dim no longer has
    columns = st.multiselect("Dimensions to draw", range(dim), key="sin_wave_dims")
    left, right = st.columns(2)
    with left:
        if columns:
            st.plotly_chart(_waves_figure(length, dim, base, layout, tuple(columns)), key="sin_waves_chart")
        else:
            st.info("Pick at least one dimension to draw.")
    right.plotly_chart(_wavelength_figure(length, dim, base), key="sin_wavelength_chart")
    st.latex(r"\omega_i = \text{base}^{-2i/d},\qquad \lambda_i = \frac{2\pi}{\omega_i} = 2\pi\cdot\text{base}^{2i/d}")
    st.caption(
        "What to notice: pair i repeats every λ_i positions. The wavelengths grow geometrically from 2π to about "
        "2π·base — a straight line on the log axis. Pairs above the dashed line do not finish one cycle within the "
        "positions shown: they change slowly and tell far-apart positions apart, like the hour hand of a clock."
    )
    show_code(sinusoid_wavelengths)


@st.fragment
def similarity_section(length: int, dim: int, base: float) -> None:
    """PE·PEᵀ and one of its rows; a fragment, so the row slider reruns only this section."""
    st.subheader("Dot products between positions: PE · PEᵀ")
    row = st.slider("Row p for the slice", 0, length - 1, length // 2, key="sin_sim_row")
    left, right = st.columns(2)
    left.plotly_chart(_similarity_figure(length, dim, base), key="sin_similarity_chart")
    row_figure, diagonal = _similarity_row_figure(row, length, dim, base)
    right.plotly_chart(row_figure, key="sin_similarity_row_chart")
    st.latex(
        r"PE(p)\cdot PE(q) = \sum_{i} \sin p\omega_i \sin q\omega_i + \cos p\omega_i \cos q\omega_i"
        r" = \sum_{i} \cos((q-p)\,\omega_i)"
    )
    st.caption(
        f"What to notice: the diagonal is largest ({diagonal:.0f} = d/2, since sin² + cos² = 1 per pair) and "
        "values fall off as positions move apart, so nearby positions look alike. Every diagonal stripe is "
        "constant: the dot product depends only on the offset q − p. In the slice, the dot products (thick) and "
        "the offset-only formula (dotted) lie on top of each other for any row p."
    )
    show_code(sinusoidal_similarity, sinusoid_offset_similarity)


@st.fragment
def shift_section(length: int, dim: int, base: float, layout: str) -> None:
    """The shift matrix M_k and its error; a fragment, so its slider reruns only this section."""
    st.subheader("Shifting by k positions is one fixed rotation")
    offset = st.slider("Shift k (positions)", 0, 256, 4, key="sin_shift_k")
    matrix_figure, residual_figure, largest = _shift_figures(offset, length, dim, base, layout)
    left, right = st.columns(2)
    left.plotly_chart(matrix_figure, key="sin_shift_matrix_chart")
    with right:
        st.metric(f"max |PE(p + {offset}) − M_k·PE(p)| over all {length} positions p", f"{largest:.1e}")
        st.plotly_chart(residual_figure, key="sin_shift_residual_chart")
    st.latex(SHIFT_LATEX)
    st.caption(
        "What to notice: M_k is a 2×2 rotation for each pair (by angle k·ω_i) and zero everywhere else. It contains "
        "k but not p: the same matrix moves every position k steps on, and the error is only float32 rounding "
        "(about 1e-7) at every p. This is why the paper expected a model to learn relative offsets easily."
    )
    show_code(sinusoidal_shift_matrix, sinusoidal_shift_residual)


@st.fragment
def naive_section(length: int, dim: int, base: float, layout: str) -> None:
    """Integers, normalised positions and the sinusoid; a fragment (its slider reruns only it)."""
    st.subheader("Why not 0, 1, 2, …?")
    short = st.slider("Length of a short sentence", 2, 64, 5, key="sin_naive_short")
    figure, last, token_short, token_long = _naive_figure(short, length, dim, base, layout)
    st.plotly_chart(figure, key="sin_naive_chart")
    st.latex(r"PE_\text{int}(p) = p \qquad PE_\text{norm}(p) = \frac{p}{L-1} \qquad PE(p, 2i) = \sin(p\,\omega_i)")
    st.caption(
        f"What to notice: integers reach {last:.0f}, far outside the grey band where word-embedding entries "
        "live, so the position would drown the word. Normalising fixes the size but not the meaning: token 1 gets "
        f"{token_short:.3g} in the {short}-token sentence but {token_long:.3g} in the {length}-token one, and "
        "0.5 is “the middle”, wherever that is. The sinusoid stays within ±1 and gives a position the same vector "
        "whatever the sentence length: the two sinusoid curves lie on top of each other."
    )
    show_code(integer_positions, normalized_positions)


def add_section(length: int, dim: int, base: float) -> None:
    """Random words against positions; no widgets of its own, so no fragment."""
    st.subheader("Why add instead of concatenate?")
    st.plotly_chart(_cosine_figure(length, dim, base), key="sin_cosine_chart")
    st.latex(
        r"\cos(w, PE(p)) = \frac{w\cdot PE(p)}{\lVert w\rVert\,\lVert PE(p)\rVert}"
        r" \approx \mathcal{N}(0, 1/d) \text{ for } w \sim \mathcal{N}(0, I_d)"
    )
    st.caption(
        "What to notice: in 2 dimensions a random word vector and a position vector can point anywhere relative to "
        "each other; in hundreds of dimensions they are almost always nearly orthogonal (cosine near 0, spread about "
        "1/√d). So x = w + PE(p) still contains both: x·w ≈ |w|² and x·PE(p) ≈ |PE(p)|², each barely disturbed by "
        "the other. Adding costs no extra width, where concatenating would make every layer wider."
    )
    show_code(embedding_pe_cosines)


@st.fragment
def learned_section(dim: int, base: float, layout: str) -> None:
    """A learned table beside the formula; a fragment, so its sliders rerun only this section."""
    st.subheader("Learned absolute embeddings (BERT, GPT-2)")
    st.markdown(
        "BERT and GPT-2 do not use a formula: they keep a table E of `max_len` trainable vectors (BERT: 512) and add "
        "row E[p] to the token at position p. Training fills each row from data — but only rows it has seen."
    )
    left, right = st.columns(2)
    max_len = left.slider("Trained maximum length (max_len)", 2, 1024, 512, key="sin_learned_max_len")
    position = right.slider("Position p to look up", 0, 2048, 100, key="sin_learned_position")
    figure, refused = _learned_figure(position, max_len, dim, base, layout)
    parameters = _learned(max_len, dim).table.weight.numel()
    if refused:
        st.error(refused, icon=":material/block:")
    st.plotly_chart(figure, key="sin_learned_chart")
    st.latex(r"x_p = w_p + E[p],\qquad E \in \mathbb{R}^{\text{max\_len} \times d},\quad p < \text{max\_len}")
    st.caption(
        f"What to notice: the table holds {parameters:,} parameters (max_len × d). Move p to "
        f"{max_len} or beyond and the table has no row at all — the model cannot even represent a longer input — "
        "while the sinusoid formula gives a vector for any p. (The learned row is shown at its random start; "
        "training would shape it.)"
    )
    show_code(LearnedPositionalEmbedding, seeded_learned_embedding)


shared = use_shared_controls("base", "dim", "length")
base, dim, length = float(shared["base"]), int(shared["dim"]), int(shared["length"])
st.title("Sinusoidal absolute encoding")
st.markdown(
    "Attention alone cannot tell where a token is, so the original Transformer adds a fixed vector PE(p), made of "
    "sines and cosines of many wavelengths, to the word embedding at position p. This page builds that table and "
    "shows why it is shaped this way: bounded values, dot products that depend on distance, shifts that are "
    "rotations, and what the simpler alternatives get wrong."
)
layout = table_section(length, dim, base)
waves_section(length, dim, base, layout)
similarity_section(length, dim, base)
shift_section(length, dim, base, layout)
naive_section(length, dim, base, layout)
add_section(length, dim, base)
learned_section(dim, base, layout)
