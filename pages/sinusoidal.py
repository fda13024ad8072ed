"""Sinusoidal absolute encoding: the table, its waves, its dot products, its shift rotation, and the alternatives."""

import streamlit as st

from charts import sinusoidal as pictures
from charts.embedding_scale import embedding_scale_chart
from posenc import absolute as pe
from posenc.embedding_scale import word_position_mix
from ui.code import show_code
from ui.figure import figure_chart, figure_part
from ui.i18n import number
from ui.language import current_language, t
from ui.live import live_chart, settled_values
from ui.notice import notice
from ui.sections import part, section
from ui.shared import use_shared_controls
from ui.sinusoidal_questions import dot_checkpoint, fastest_checkpoint, scale_checkpoint
from ui.words import Text, markdown, notice_words, words_part


def layout_choice() -> str:
    """The table's header and its layout choice; not in a section: every section below draws the chosen layout."""
    st.subheader(t("sinusoidal.table_header"))
    names = {name: t(f"sinusoidal.layout_{name}") for name in pe.SINUSOID_LAYOUTS}  # a plain dict: no state read later
    return st.radio(t("sinusoidal.layout_label"), pe.SINUSOID_LAYOUTS, format_func=names.get, horizontal=True,
                    key="sin_layout")  # fmt: skip


@section("sin_table", uses=("length", "dim", "base"), whole=())  # the live table follows the store
def table_section(length: int, dim: int, base: float, layout: str, lang: str) -> None:
    """The table, asked about first."""
    fastest_checkpoint(dim, base, layout)
    live_chart(pictures.live_table(length, dim, base, layout, lang), key="sin_table_live", shared=True)
    st.latex(
        r"PE(p, 2i) = \sin(p\,\omega_i),\quad PE(p, 2i+1) = \cos(p\,\omega_i),\quad \omega_i = \text{base}^{-2i/d}"
    )
    notice("sinusoidal.table_notice")
    show_code(pe.sinusoidal)


@section("sin_waves", uses=("length", "dim", "base"), whole=("dim",))  # the columns to choose from
def waves_section(length: int, dim: int, base: float, layout: str, lang: str) -> None:
    """Chosen columns and the wavelengths; a fragment, so its choice reruns only this section."""
    st.subheader(t("sinusoidal.waves_header"))
    defaults = sorted({0, 1, dim // 4, dim // 2} & set(range(dim)))  # a smaller dim drops the ones it no longer has
    st.session_state["sin_wave_dims"] = [d for d in st.session_state.get("sin_wave_dims", defaults) if d < dim]
    columns = st.multiselect(t("sinusoidal.wave_dims_label"), range(dim), key="sin_wave_dims")
    left, right = st.columns(2)  # both follow the sidebar's thumbs in the browser (``follow``; built lazily)
    waves, at = (length, dim, base, layout, tuple(columns), lang), (length, dim, base, lang)
    with left:
        if columns:
            figure_chart(lambda: pictures.waves_figure(*waves), "sin_waves_chart", follow=pictures.waves_follow(*waves))
        else:
            st.info(t("sinusoidal.pick_a_dimension"))
    with right:
        figure_chart(lambda: pictures.wavelength_figure(*at), "sin_wavelength_chart", pictures.wavelength_follow(*at))
    st.latex(r"\omega_i = \text{base}^{-2i/d},\qquad \lambda_i = \frac{2\pi}{\omega_i} = 2\pi\cdot\text{base}^{2i/d}")
    notice("sinusoidal.waves_notice")
    show_code(pe.sinusoid_wavelengths)


@section("sin_similarity", uses=("length", "dim", "base"), whole=())  # the live PE·PEᵀ follows the store
def similarity_section(length: int, dim: int, base: float, lang: str) -> None:
    """PE·PEᵀ, live (its sliders move the shared controls), and one of its rows."""
    st.subheader(t("sinusoidal.similarity_header"))
    dot_checkpoint(length, dim, base)
    live_chart(pictures.live_similarity(length, dim, base, lang), key="sin_similarity_live", shared=True)
    similarity_row(length, dim, base, lang)
    st.latex(
        r"PE(p)\cdot PE(q) = \sum_{i} \sin p\omega_i \sin q\omega_i + \cos p\omega_i \cos q\omega_i"
        r" = \sum_{i} \cos((q-p)\,\omega_i)"
    )
    similarity_notice(dim, base)
    show_code(pe.sinusoid_dot_by_offset, pe.sinusoid_offset_similarity)


@words_part("sin_similarity_numbers", uses=("dim", "base"))
def similarity_notice(dim: int, base: float) -> Text:
    diagonal = pe.sinusoid_dot_by_offset([0], dim, base).item()  # PE(p)·PE(p) = D/2
    return notice_words("sinusoidal.similarity_notice", diagonal=f"{diagonal:.0f}")


@part("sin_similarity_row", uses=("length",))  # the row slider's range; the picture follows dim and base
def similarity_row(length: int, dim: int, base: float, lang: str) -> None:
    """One row of PE·PEᵀ; a fragment, so the row slider reruns only it."""
    row = st.slider(t("sinusoidal.similarity_row_label"), 0, length - 1, length // 2, key="sin_sim_row")
    figure_chart(key="sin_similarity_row_chart", **pictures.similarity_row_chart(row, length, dim, base, lang))


@section("sin_shift", uses=("length", "dim", "base"), whole=())  # its slider reruns only this section
def shift_section(length: int, dim: int, base: float, layout: str, lang: str) -> None:
    """The shift matrix M_k and its error."""
    st.subheader(t("sinusoidal.shift_header"))
    offset = st.slider(t("sinusoidal.shift_label"), 0, 256, 4, key="sin_shift_k")
    shift_largest(length, dim, base, offset, layout, lang)
    shift_pictures(length, dim, base, offset, layout, lang)
    st.latex(pictures.SHIFT_LATEX)
    notice("sinusoidal.shift_notice")
    show_code(pe.sinusoidal_shift_matrix, pe.sinusoidal_shift_residual)


@words_part("sin_shift_largest", uses=("length", "dim", "base"))
def shift_largest(length: int, dim: int, base: float, offset: int, layout: str, lang: str) -> Text:
    largest = pictures.shift_figures(offset, length, dim, base, layout, lang)[2]
    return markdown(t("sinusoidal.shift_metric", offset=offset, length=length, largest=f"{largest:.1e}"))


@figure_part("sin_shift_pictures", uses=("length", "dim", "base"))  # one above the other: each needs the column's
def shift_pictures(length: int, dim: int, base: float, offset: int, layout: str, lang: str) -> dict:  # width at 1024
    matrix_figure, residual_figure, _ = pictures.shift_figures(offset, length, dim, base, layout, lang)
    return {"sin_shift_matrix_chart": matrix_figure, "sin_shift_residual_chart": residual_figure}


@section("sin_naive", uses=("length", "dim", "base"), whole=("length", "dim"))  # the chart's arrays, the notice
def naive_section(length: int, dim: int, base: float, layout: str, lang: str) -> None:
    """Integers, normalised positions and the sinusoid, live over the short input's length and the shared length."""
    st.subheader(t("sinusoidal.naive_header"))
    short = settled_values("sin_naive_live", {"short": 5})["short"]
    live_chart(pictures.live_naive(short, length, dim, base, layout, lang), key="sin_naive_live", shared=True)
    st.latex(r"PE_\text{int}(p) = p \qquad PE_\text{norm}(p) = \frac{p}{L-1} \qquad PE(p, 2i) = \sin(p\,\omega_i)")
    last = pe.integer_positions(length)[-1, 0].item()
    token_short, token_long = pe.normalized_positions(short)[1, 0].item(), pe.normalized_positions(length)[1, 0].item()
    numbers = {"last": f"{last:.0f}", "token_short": f"{token_short:.3g}", "token_long": f"{token_long:.3g}"}
    notice("sinusoidal.naive_notice", short=short, length=length, **numbers)
    show_code(pe.integer_positions, pe.normalized_positions)


@section("sin_add", uses=("dim",), whole=())  # only the live chart reads the dim
def add_section(dim: int, lang: str) -> None:
    """Random words against positions, live over the dim (a shared control). Depends on the dim alone: a Gaussian
    word's cosine with a fixed vector has the same law whatever the vector."""
    st.subheader(t("sinusoidal.add_header"))
    cosines_live(dim, lang)
    where = t("sinusoidal.add_formula_where")
    st.latex(
        r"\cos(w, PE(p)) = \frac{w\cdot PE(p)}{\lVert w\rVert\,\lVert PE(p)\rVert}"
        rf" \approx \mathcal{{N}}(0, 1/d) \text{{ {where} }} w \sim \mathcal{{N}}(0, I_d)"
    )
    notice("sinusoidal.add_notice")
    show_code(pe.embedding_pe_cosines)
    scale_part(lang)


@part("sin_add_live", uses=("dim",))  # its dim grid holds the dim: the cosines of each are the server's
def cosines_live(dim: int, lang: str) -> None:
    live_chart(pictures.live_cosines(dim, lang), key="sin_cosine_live", shared=True)


def scale_part(lang: str) -> None:
    """Vaswani et al.'s ×√d_model before adding: asked first, then the word's and the position's part of x."""
    scale_checkpoint()
    figure_chart(embedding_scale_chart(lang), key="sin_scale_chart")
    st.latex(r"x=c\,w+PE(p),\quad w\sim\mathcal N(0,I_d/d),\quad \lVert PE(p)\rVert^2=d/2,\quad c\in\{1,\sqrt d\}")
    notice("sinusoidal.scale_notice")
    show_code(word_position_mix)


@section("sin_learned", uses=("dim", "base"), whole=())  # its sliders rerun only this section
def learned_section(dim: int, base: float, layout: str, lang: str) -> None:
    """A learned table beside the formula."""
    st.subheader(t("sinusoidal.learned_header"))
    st.markdown(t("sinusoidal.learned_intro"))
    left, right = st.columns(2)
    max_len = left.slider(t("sinusoidal.learned_max_len_label"), 2, 1024, 512, key="sin_learned_max_len")
    position = right.slider(t("sinusoidal.learned_position_label"), 0, 2048, 100, key="sin_learned_position")
    if pictures.learned_figure(position, max_len, dim, base, layout, lang)[1]:  # the table has no row for it
        message = t("sinusoidal.learned_refused", last=max_len - 1, max_len=max_len, position=position)
        st.error(message, icon=":material/block:")
    learned_picture(dim, base, max_len, position, layout, lang)
    st.latex(r"x_p = w_p + E[p],\qquad E \in \mathbb{R}^{\text{max\_len} \times d},\quad p < \text{max\_len}")
    learned_notice(dim, max_len, lang)
    show_code(pe.LearnedPositionalEmbedding, pe.seeded_learned_embedding)


@figure_part("sin_learned_picture", uses=("dim", "base"))
def learned_picture(dim: int, base: float, max_len: int, position: int, layout: str, lang: str) -> dict:
    return {"sin_learned_chart": pictures.learned_figure(position, max_len, dim, base, layout, lang)[0]}


@words_part("sin_learned_numbers", uses=("dim",))
def learned_notice(dim: int, max_len: int, lang: str) -> Text:
    parameters = pictures.learned_embedding(max_len, dim).table.weight.numel()
    return notice_words("sinusoidal.learned_notice", parameters=number(lang, parameters), max_len=max_len)


shared = use_shared_controls("base", "dim", "length", by_section=True)
base, dim, length = float(shared["base"]), int(shared["dim"]), int(shared["length"])
lang = current_language()
st.title(t("sinusoidal.title"))
st.markdown(t("sinusoidal.intro"))
layout = layout_choice()
table_section(length, dim, base, layout, lang)
waves_section(length, dim, base, layout, lang)
similarity_section(length, dim, base, lang)
shift_section(length, dim, base, layout, lang)
naive_section(length, dim, base, layout, lang)
add_section(dim, lang)
learned_section(dim, base, layout, lang)
