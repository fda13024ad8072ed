"""Long-range decay and context length: how RoPE scores fade with distance, and how long-context methods stretch it."""

import streamlit as st
import torch

from figures.decay import curves_figure, decay_bound_figure, scaled_frequency_figure, score_figure, wavelength_figure
from posenc.decay import (
    full_turn_pairs,
    rope_context_extension,
    rope_decay_bound_at,
    rope_extension_decay,
    rope_ones_score_at,
    rope_random_score_moments,
    rope_score_curves,
    rope_wavelengths,
)
from posenc.rope import rope_inv_freq
from posenc.rope_scaling import rope_scaled_inv_freq
from ui.code import show_code
from ui.shared import use_shared_controls

LENGTHS = [2**power for power in range(8, 18)]  # 256 … 131 072 tokens
COMPARED_BASES = (10000.0, 500000.0)  # the RoFormer / Llama 2 base and the Llama 3 base
KINDS = {"bound": "relative upper bound", "ones": "score q·k (q = k = all ones)"}


def span(max_distance: int) -> int:
    """Curves are computed up to the next power of two (≥ 256) and cut: a slider move stays a cache hit."""
    return max(256, 1 << (max_distance - 1).bit_length())


@st.cache_data(max_entries=64)
def score_curves(dim: int, base: float, up_to: int, similarity: float) -> dict:
    return {name: values.numpy() for name, values in rope_score_curves(dim, base, up_to, similarity).items()}


@st.cache_data(max_entries=64)
def decay_bound(dim: int, base: float, up_to: int) -> tuple:
    """(distances, bound): rope_decay_bound's values (to ~1e-12), computed without an [R, P] table."""
    distances = torch.arange(up_to + 1)
    return distances.numpy(), rope_decay_bound_at(distances, rope_inv_freq(dim, base, dtype=torch.float64)).numpy()


@st.cache_data(max_entries=64)
def extension_decay(dim: int, base: float, trained: int, target: int, kind: str) -> tuple:
    distances, curves = rope_extension_decay(dim, base, trained, target, kind)
    return distances.numpy(), {name: values.numpy() for name, values in curves.items()}


# Built figures are cached by their scalar inputs (never mutated): a move rebuilds only the charts it changes.
@st.cache_resource(max_entries=32)
def bound_chart(dim: int, base: float, max_distance: int, log_x: bool):
    distances, bound = decay_bound(dim, base, span(max_distance))
    return decay_bound_figure(distances[: max_distance + 1], bound[: max_distance + 1], log_x)


@st.cache_resource(max_entries=32)
def score_chart(dim: int, base: float, max_distance: int, similarity: float, log_x: bool):
    curves = score_curves(dim, base, span(max_distance), similarity)
    ones, mean, std = (curves[name][: max_distance + 1] for name in ("ones", "mean", "std"))
    return score_figure(curves["distance"][: max_distance + 1], ones, mean, std, log_x)


@st.cache_resource(max_entries=32)
def base_chart(dim: int, base: float, max_distance: int, log_x: bool):
    bases = dict.fromkeys((*COMPARED_BASES, base))  # the shared base joins the comparison if it is another one
    tables = {f"base {value:,.0f}": decay_bound(dim, value, span(max_distance)) for value in bases}
    bounds = {label: bound[: max_distance + 1] for label, (_, bound) in tables.items()}
    distances = next(iter(tables.values()))[0][: max_distance + 1]
    return curves_figure(distances, bounds, "The bound for different bases", "bound", log_x)


@st.cache_resource(max_entries=32)
def wavelength_chart(dim: int, base: float, train: int):
    inv_freq = rope_inv_freq(dim, base)
    return wavelength_figure(rope_wavelengths(inv_freq), full_turn_pairs(inv_freq, train), train)


@st.cache_resource(max_entries=32)
def extension_charts(dim: int, base: float, train: int, target: int, kind: str) -> tuple:
    """(frequency chart, decay chart); rope_context_extension raises ValueError when target < train."""
    frequencies = {name: freqs for name, (freqs, _) in rope_context_extension(dim, base, train, target).items()}
    distances, curves = extension_decay(dim, base, train, target, kind)
    title = f"{KINDS[kind].capitalize()} after scaling"
    marks = {"training": train, "target": target}
    decay = curves_figure(distances, curves, title, KINDS[kind], True, marks, height=560)
    return scaled_frequency_figure(frequencies), decay


@st.fragment
def decay_sections(dim: int, base: float) -> None:
    """The first two sections (the second reuses the first one's distances); a fragment, so their widgets rerun
    only them on the server."""
    max_distance, log_x = bound_and_scores(dim, base)
    base_and_wavelengths(dim, base, max_distance, log_x)


def bound_and_scores(dim: int, base: float) -> tuple[int, bool]:
    st.subheader("The long-term decay bound, and the actual scores beside it")
    left, middle, right = st.columns([2, 2, 1])
    max_distance = left.slider("max distance r", 16, 8192, 256, step=16, key="decay_max_distance")
    similarity = middle.slider(
        "how alike are random q and k (ρ)", 0.0, 1.0, 0.0, step=0.1, key="decay_similarity",
        help="Each feature of k is ρ·(the same feature of q) + √(1 − ρ²)·noise. 0: unrelated, 1: k = q.",
    )  # fmt: skip
    log_x = right.toggle("log x-axis", key="decay_log_x")
    left, right = st.columns(2)
    left.plotly_chart(bound_chart(dim, base, max_distance, log_x), key="decay_bound_chart")
    right.plotly_chart(score_chart(dim, base, max_distance, similarity, log_x), key="decay_score_chart")
    st.latex(
        r"\begin{aligned}(R_m q)^\top(R_n k)&=\mathrm{Re}\sum_{i=0}^{d/2-1}h_i\,e^{\mathrm{i}\,r\theta_i},\quad r=m-n,"
        r"\quad h_i=\tilde q_i\overline{\tilde k_i},\quad\theta_i=\text{base}^{-2i/d}\\"
        r"\big|(R_m q)^\top(R_n k)\big|&\le\big(\max_i|h_{i+1}-h_i|\big)\sum_{j=1}^{d/2}|S_j(r)|,"
        r"\quad S_j(r)=\sum_{k=0}^{j-1}e^{\mathrm{i}\,r\theta_k}\\"
        r"\text{left chart}&=\tfrac{1}{d/2}\textstyle\sum_{j=1}^{d/2}|S_j(r)|\\"
        r"\text{right chart, }q=k=\mathbf 1&:\ s(r)=2\textstyle\sum_i\cos(r\theta_i)\\"
        r"k=\rho\,q+\sqrt{1-\rho^2}\,\varepsilon&:\ \mathbb E\,s(r)=2\rho\textstyle\sum_i\cos(r\theta_i),\quad"
        r"\operatorname{Var}s(r)=d+2\rho^2\textstyle\sum_i\cos(2r\theta_i)\end{aligned}"
    )
    st.caption(
        "**What to notice.** At d = 128, base = 10 000 and r ≤ 256 the left chart is Figure 2 of the RoFormer paper: "
        "the bound starts at 32.5 and falls, with ripples, to about 6.5. It is a ceiling, not a score. On the right, "
        "the all-ones score starts at d and also fades. But for unrelated random q and k (ρ = 0) the average score is "
        "0 at every distance, and the spread (about ±√d) does not shrink: RoPE does not make every score decay. Move ρ "
        "towards 1 and the average follows the all-ones curve, scaled by ρ: what fades with distance is a query's "
        "match with a key that *resembles* it. Turn on the log axis and raise the max distance to see the long tail."
    )
    show_code(rope_decay_bound_at, rope_ones_score_at, rope_random_score_moments)
    return max_distance, log_x


def base_and_wavelengths(dim: int, base: float, max_distance: int, log_x: bool) -> None:
    st.subheader("How the base changes the decay, and which pairs turn within the training context")
    train = st.select_slider("training context length", LENGTHS, 4096, format_func="{:,}".format, key="decay_train")
    left, right = st.columns(2)
    left.plotly_chart(base_chart(dim, base, max_distance, log_x), key="decay_base_chart")
    right.plotly_chart(wavelength_chart(dim, base, train), key="decay_wavelength_chart")
    st.latex(
        r"\lambda_i=\frac{2\pi}{\theta_i}=2\pi\,\text{base}^{2i/d},\qquad"
        r"\text{pair } i \text{ turns fully within } L \text{ tokens}\iff(L-1)\,\theta_i\ge 2\pi"
    )
    st.caption(
        "**What to notice.** A larger base makes the slow pairs slower, so their terms stay in step for longer and the "
        "bound falls later: with base 500 000 (Llama 3) far-away tokens keep more of their score than with 10 000 "
        "(distances as set above). On the right, pairs under the dotted line made at least one full turn inside the "
        "training context; the pairs above it were only ever seen on part of their circle. At longer distances they "
        "reach angles the model never saw in training, which is what the context-extension methods below fix."
    )
    show_code(rope_wavelengths, full_turn_pairs)


@st.fragment
def context_extension(dim: int, base: float) -> None:
    """The context-extension section; a fragment, so its widgets rerun only it on the server."""
    st.subheader("Context extension: stretching RoPE past its training length")
    left, middle, right = st.columns([2, 2, 2])
    train = left.select_slider("training length", LENGTHS[:-2], 4096, format_func="{:,}".format, key="decay_ext_train")
    target = middle.select_slider("target length", LENGTHS, 32768, format_func="{:,}".format, key="decay_ext_target")
    kind = right.radio("decay curve", list(KINDS), format_func=KINDS.get, horizontal=True, key="decay_ext_kind")
    try:
        frequency_figure, decay_figure = extension_charts(dim, base, train, target, kind)
    except ValueError as err:
        st.info(str(err))
        return
    left, right = st.columns(2)
    left.plotly_chart(frequency_figure, key="decay_frequency_chart")
    right.plotly_chart(decay_figure, key="decay_extension_chart")
    st.latex(
        r"\begin{aligned}&s=L_\text{target}/L_\text{train}\\"
        r"&\text{linear: }\theta'_i=\theta_i/s\qquad"
        r"\text{dynamic NTK: }\theta'_i=\big(\text{base}\cdot s^{d/(d-2)}\big)^{-2i/d}\\"
        r"&\text{YaRN: }\theta'_i=\gamma_i\,\theta_i/s+(1-\gamma_i)\,\theta_i,\quad"
        r"\gamma_i=\mathrm{clamp}\Big(\frac{i-i_{32}}{i_{1}-i_{32}},0,1\Big)\\"
        r"&\qquad i_\beta=\text{the pair that turns }\beta\text{ times in }L_\text{train};"
        r"\quad\text{logits}\times(0.1\ln s+1)^2\\"
        r"&\text{Llama 3: }\theta'_i=\begin{cases}\theta_i&\lambda_i<L_\text{train}/4\\"
        r"\theta_i/s&\lambda_i>L_\text{train}\\(1-\sigma_i)\,\theta_i/s+\sigma_i\,\theta_i,\ "
        r"\sigma_i=\frac{L_\text{train}/\lambda_i-1}{3}&\text{otherwise}\end{cases}\end{aligned}"
    )
    st.caption(
        "**What to notice.** Linear interpolation divides every frequency by s: the whole curve slides right by s, "
        "but neighbours get squeezed too (pair 0 now needs s tokens to turn as far as it used to in one). Dynamic NTK "
        "raises the base instead: the fastest pair is untouched and the slowest is divided by s. YaRN and Llama 3 "
        "leave the pairs that turn many times within training alone, fully interpolate those that never turn, and "
        "blend in between, so up to the training length their curves stay close to the original. YaRN also scales "
        "the logits by (0.1·ln s + 1)², which lifts its curve. The distance axis is logarithmic; the fast wobble "
        "is real (the fastest pairs change the sum from one distance to the next)."
    )
    show_code(rope_scaled_inv_freq, rope_context_extension, rope_extension_decay)


shared = use_shared_controls("base", "dim")
st.title("Long-range decay and context length")
st.markdown(
    "RoPE turns each pair of features at its own speed, so the match between a query and a key changes with their "
    "distance, and on average fades for far-apart tokens. This page measures that fade and shows how the base and "
    "the context-extension methods (linear, dynamic NTK, YaRN, Llama 3) reshape it for longer texts."
)
decay_sections(shared["dim"], shared["base"])
context_extension(shared["dim"], shared["base"])
