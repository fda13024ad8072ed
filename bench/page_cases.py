"""Which widgets each page's benchmark moves, through which values, at default and at the largest sizes.

A "move" sets one widget to a new value and reruns, as a student dragging a slider does. Values are distinct so a
move is never a pure cache hit for the section it feeds. ``MAX_STATE`` opens a page with every size control at its
largest allowed value (shared controls and the page's own size sliders).
"""

from __future__ import annotations

from dataclasses import dataclass

from ui.limits import LIMITS


@dataclass(frozen=True)
class Move:
    """Widget ``key`` of ``kind`` (slider, select_slider, text_input …) set to each of ``values`` in turn; kind
    "live": a live chart's slider let go there (key "chart key:control"); kind "shared": a shared control (key: its
    name) committed there, as the sidebar's browser slider commits it on release (``ui.shared``).

    ``max_values`` replaces ``values`` at the largest sizes when the widget is itself a size (it stays near its max).
    """

    key: str
    kind: str
    values: tuple
    max_values: tuple | None = None

    def values_at(self, largest: bool) -> tuple:
        return self.max_values if largest and self.max_values else self.values


@dataclass(frozen=True)
class PageCase:
    path: str
    moves: tuple[Move, ...]  # the first move is the one --quick uses
    max_state: dict  # widget/session values that make every table as large as allowed


SHARED_MAX = {"shared_dim": LIMITS.dim_max, "shared_length": LIMITS.length_max, "shared_heads": LIMITS.heads_max}
SEVEN = 7  # values per move: the first is an untimed warm-up, the median is over the other six


def _spread(low: int, high: int, count: int = SEVEN, step: int = 1) -> tuple[int, ...]:
    """``count`` distinct values spread over [low, high] on the step grid, in a zig-zag order."""
    span = (high - low) // step
    values = [low + step * round(span * (i + 0.5) / count) for i in range(count)]
    return tuple(values[::2] + values[1::2])


def _downward(top: int, step: int, count: int = SEVEN) -> tuple[int, ...]:
    """``count`` values going down from ``top``: a size control that stays near its largest value."""
    return tuple(range(top, top - step * count, -step))


# Sentence A must stay a reordering of sentence B ("Tom hates orange, but likes apple") or the page shows a notice.
HOME_SENTENCES = (
    "Tom likes orange, but hates apple",
    "Tom likes apple, but hates orange",
    "apple likes Tom, but hates orange",
    "orange hates Tom, but likes apple",
    "Tom hates apple, but likes orange",
    "but Tom likes apple, hates orange",
    "Tom likes apple, hates orange but",
)
# A shared control changes every table of the page: the whole page recomputes (the worst case of a move).
DIM_MOVE = Move("dim", "shared", _spread(96, 160, step=2), _spread(1010, 1022, step=2))

CASES = (
    PageCase(
        "pages/home.py",
        (Move("home_sentence_a_en", "text_input", HOME_SENTENCES),),
        {},
    ),
    PageCase(
        "pages/sinusoidal.py",
        (
            Move("sin_sim_row", "slider", _spread(0, 63)),
            Move("sin_shift_k", "slider", _spread(0, 256)),
            Move("sin_naive_live:short", "live", _spread(2, 64)),
            Move("sin_learned_position", "slider", _spread(0, 2048)),
            Move("sin_learned_max_len", "slider", _spread(2, 1024)),
            Move("length", "shared", _spread(32, 96), _spread(4080, 4095)),
        ),
        {**SHARED_MAX, "sin_learned_max_len": 1024},
    ),
    PageCase(
        "pages/relative.py",
        (
            Move("relative_shaw_live:k", "live", _spread(0, 64)),
            Move("relative_t5_live:num_buckets", "live", _spread(4, 64, step=2)),
            Move("relative_t5_live:max_distance", "live", (192, 256, 384, 512, 768, 1024, 128)),
            Move("heads", "shared", _spread(1, 16), _spread(10, 16)),
        ),
        {**SHARED_MAX, "relative_t5_live__values": {"num_buckets": 64, "max_distance": 1024}},
    ),
    PageCase(
        "pages/rope.py",
        (
            Move("rope_pair_live:m", "live", _spread(0, 512)),
            Move("rope_pair_live:pair", "live", _spread(0, 63)),
            Move("rope_shift_live:shift", "live", _spread(0, 512, step=4)),
            Move("rope_clock_live:position", "live", (5, 40, 300, 2000, 15_000, 250_000, 1_000_000)),  # on its grid
            Move("rope_layout_live:offset", "live", _spread(0, 16)),
            DIM_MOVE,
        ),
        {**SHARED_MAX, "rope_clock_live__values": {"position": 1_000_000}},
    ),
    PageCase(
        "pages/decay.py",
        (
            Move("decay_bound_live:max_distance", "live", (192, 384, 1024, 128, 512, 768, 96), (6144, 4096, 8192) * 2),
            Move("decay_similarity", "slider", (0.1, 0.5, 0.9, 0.3, 0.7, 0.2, 0.6)),
            Move("decay_extension_live:factor", "live", (2, 16, 4, 32, 1, 8, 2), (16, 8, 32) * 2),
            DIM_MOVE,
        ),
        {
            **SHARED_MAX,
            "decay_bound_live__values": {"max_distance": 8192},
            "decay_extension_live__values": {"train": 32768, "factor": 32},
        },
    ),
    PageCase(
        "pages/relative_scores.py",
        (
            Move("rs_deberta_live:k", "live", _spread(1, 64), _downward(64, 1)),
            Move("rs_nope_gap", "slider", (-3.0, 1.5, -1.0, 2.5, 0.5, -2.0, 3.0)),
            Move("rs_xl_view", "radio", ("absolute", "relative") * 3 + ("absolute",)),
            Move("rs_nope_example", "selectbox", ("345+678=", "907-45=", "111+11=", "9999+9999=") * 2),
            Move("length", "shared", _spread(32, 96), _spread(4080, 4095)),
            DIM_MOVE,
        ),
        {**SHARED_MAX, "rs_deberta_live__values": {"k": 64}},
    ),
    PageCase(  # every other preset once (six distinct models: each move recomputes every table of the page)
        "pages/model_rope.py",
        (
            Move(
                "model_rope_choice_widget",
                "selectbox",
                ("qwen2.5-7b", "gpt-neox-20b", "qwen2.5-7b-yarn", "phi-2", "mistral-7b-v0.3", "llama-3.1-8b"),
            ),
        ),
        {},
    ),
    PageCase(  # every other stack once, then the allocation's head, base, share and length
        "pages/rope_layers.py",
        (
            Move("rope_layers_model", "selectbox", ("llama-4-scout", "gemma-4-31b", "smollm3-3b", "gpt-oss-20b")),
            Move("rope_layers_head", "select_slider", (512, 64, 256, 128) * 2),
            Move("rope_layers_length", "select_slider", (1_048_576, 1024, 65_536, 8192) * 2),
            Move("rope_layers_base", "select_slider", (1_000_000.0, 500_000.0, 10_000.0) * 2),
            Move("rope_layers_share", "select_slider", (0.75, 0.125, 0.5, 0.25) * 2),
        ),
        {"rope_layers_head": 512, "rope_layers_length": 1_048_576},
    ),
    PageCase(  # the two RoPE pages share base and dim: the dim move recomputes every section
        "pages/rope_practice.py",
        (Move("rope_partial_fraction", "select_slider", (0.4, 0.5, 1.0, 0.25) * 2), DIM_MOVE),
        {**SHARED_MAX},
    ),
    PageCase(  # shipped checkpoints: a model move runs a trained model on 256 tokens, a length move up to 512
        "pages/extrapolation.py",
        (
            Move("extrap_pos_len", "select_slider", (512, 64, 96, 128, 192, 256, 384)),  # 512 is the default
            Move("extrap_pe", "selectbox", ("none", "sinusoidal", "learned", "t5", "rope")),  # alibi is the default
            Move("extrap_att_len", "select_slider", (512, 64, 128)),  # of 64, 128, 256 (the default), 512
        ),
        {},
    ),
    PageCase(  # run only if the page exists and renders (it is written in parallel)
        "pages/toy_model.py",
        (Move("toy_layer", "slider", (1, 2, 1, 2, 1, 2, 1)), Move("toy_head", "slider", (1, 2, 3, 4, 1, 2, 3))),
        {},
    ),
)
