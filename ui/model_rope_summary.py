"""The "Your model's RoPE" page's summary of one model's RoPE in sentences (dimensions, context, how many pairs turn
fully, what the scaling changes, what differs between layers), in the student's language, and the expander with the
values read from the config."""

from __future__ import annotations

import streamlit as st

from charts.model_rope import chunked_rope, summary_counts
from posenc.model_config import RopeConfig, rope_config_to_dict
from ui.i18n import number, shown_number
from ui.language import current_language, t


def describe(config: RopeConfig, name: str) -> None:
    """The model's RoPE in sentences, then what the page read from the config."""
    st.markdown("\n".join(f"- {line}" for line in summary_lines(config, name)))
    with st.expander(t("model_rope.read_label"), icon=":material/data_object:"):
        st.caption(t("model_rope.read_caption"))
        st.json(rope_config_to_dict(config))


def summary_lines(config: RopeConfig, name: str) -> list[str]:
    """Sentences for the model's dimensions, its context and scaling, its pairs, and its layers."""
    counts, lang = summary_counts(config), current_language()
    dims = "summary_dims" if config.rotary_dim == config.head_dim else "summary_dims_partial"
    if config.rope_type == "proportional":  # Gemma 4: the whole head's first frequencies, the rest unrotated
        dims = "summary_dims_proportional"
    lines = [t(f"model_rope.{dims}", name=name, head_dim=config.head_dim, rotary_dim=config.rotary_dim,
               pairs=config.pairs, base=number(lang, config.base, ".10g"),
               unrotated=config.head_dim // 2 - config.pairs, half=config.head_dim // 2,
               slowest=number(lang, counts["slowest"], ".0f"))]  # fmt: skip
    train, extended = number(lang, config.training_length), number(lang, config.extended_length)
    declared = ""  # which summary_scaled sentence: "", "_declared" or "_from"
    if not config.is_scaled:
        lines.append(t("model_rope.summary_unscaled", train=train))
    elif config.rope_type == "dynamic":
        lines.append(t("model_rope.summary_dynamic", factor=f"{config.factor:g}", train=train, extended=extended,
                       slowdown=f"{counts['slowdown']:.4g}"))  # fmt: skip
    else:
        method, ratio = t(f"model_rope.type_{config.rope_type}"), config.extended_length / config.training_length
        declared = "" if ratio == config.factor else "_declared"  # the config declares more (or less) than factor·L
        if chunked_rope(config):
            declared = "_from"  # Llama 4 Scout: trained on up to 256K, its RoPE layers see chunks of 8 192
        lines.append(t(f"model_rope.summary_scaled{declared}", method=method, factor=f"{config.factor:g}", train=train,
                       extended=extended, ratio=shown_number(lang, ratio)))  # fmt: skip
    turns = "summary_turns" if counts["never"] else "summary_turns_all"  # Gemma 4's global layers: every pair
    lines.append(t(f"model_rope.{turns}", full=counts["full"], pairs=config.pairs, never=counts["never"]))
    if config.is_scaled and declared != "_from":  # Llama 4 Scout's RoPE layers never meet a distance past 8 192
        lines.append(t("model_rope.summary_beyond", extended=extended, before=counts["before"], after=counts["after"]))
    lines.extend(_scaling_lines(config, counts, train))
    return lines + _layer_lines(config, counts)


def _scaling_lines(config: RopeConfig, counts: dict, train: str) -> list[str]:
    """Sentences for what a scaling adds: LongRoPE's lists, DeepSeek's mscale, Llama 4's step, YaRN's temperature
    and gpt-oss's unrounded ramp."""
    lines = []
    if config.rope_type == "longrope":
        lines.append(t("model_rope.summary_longrope", train=train, short_low=f"{min(config.short_factor):.3g}",
                       short_high=f"{max(config.short_factor):.3g}", long_low=f"{min(config.long_factor):.3g}",
                       long_high=f"{max(config.long_factor):.3g}", attention=f"{counts['attention']:.4f}"))  # fmt: skip
    elif counts["softmax"] != 1.0:  # DeepSeek's mscale
        lines.append(t("model_rope.summary_mscale", attention=f"{counts['attention']:.4f}", mscale=f"{config.mscale:g}",
                       softmax=f"{counts['softmax']:.4f}", mscale_all_dim=f"{config.mscale_all_dim:g}"))  # fmt: skip
    elif chunked_rope(config):  # Llama 4 Scout
        lines.append(t("model_rope.summary_llama3_step", low=f"{config.low_freq_factor:g}", factor=f"{config.factor:g}",
                       cut=number(current_language(), config.training_length / config.low_freq_factor, ".0f"),
                       extended=number(current_language(), config.extended_length)))  # fmt: skip
    elif counts["attention"] != 1.0:
        attention = counts["attention"]
        lines.append(t("model_rope.summary_attention", attention=f"{attention:.4f}", squared=f"{attention**2:.4f}"))
    if config.rope_type == "yarn" and not config.truncate:  # gpt-oss
        lines.append(t("model_rope.summary_yarn_unrounded"))
    return lines


def _layer_lines(config: RopeConfig, counts: dict) -> list[str]:
    """Sentences for what differs between layers or axes: NoPE layers, Gemma 3's and 4's local layers, M-RoPE's
    sections."""
    lines, lang = [], current_language()
    if config.nope_layers:
        shown = ", ".join(str(layer) for layer in config.nope_layers)
        lines.append(t("model_rope.summary_nope", count=len(config.nope_layers), layers=config.layers, which=shown))
    if config.local_base is not None:
        local = "summary_local" if config.is_scaled else "summary_local_unscaled"  # Gemma 3 scales, Gemma 4 does not
        lines.append(t(f"model_rope.{local}", local=len(config.local_layers), layers=config.layers,
                       base=number(lang, config.local_base, ".10g"), window=number(lang, config.sliding_window),
                       full=counts["local_full"], pairs=config.local_rotary_dim // 2,
                       global_base=number(lang, config.base, ".10g")))  # fmt: skip
    if config.mrope_section:
        time, height, width = config.mrope_section
        kind = "summary_mrope_interleaved" if config.mrope_interleaved else "summary_mrope"  # Qwen3-VL, Qwen2-VL
        lines.append(t(f"model_rope.{kind}", time=time, height=height, width=width, height_span=3 * height,
                       time_end=time - 1, height_end=time + height - 1, last=config.pairs - 1,
                       width_span=3 * width))  # fmt: skip
    return lines
