"""The "Your model's RoPE" page in the URL: ``?model=<preset id>``, or ``?model=custom&rope=<config>`` for a pasted
config, where ``<config>`` is the RoPE part of it (:func:`posenc.model_config.rope_config_to_dict`, about ten keys)
as compact JSON in URL-safe base64. The rest of a pasted config.json is not in the link.

A link's values are untrusted: an unknown preset, or a ``rope`` value that is too long, not base64, not JSON or not a
valid config, opens the default preset with a notice that never repeats the link's text. A valid one is carried as
the config it reads as, re-written by the app, never as the text that came in.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Iterable

import streamlit as st

from posenc.model_config import RopeConfig, rope_config_from_dict, rope_config_to_dict

MODEL_PARAM, CONFIG_PARAM = "model", "rope"
CUSTOM = "custom"  # the ?model= value (and the choice) of a pasted config
MAX_LINK_CHARS = 4096  # a carried config is ~300 characters (LongRoPE's 2 × 48 factors: ~2 650); longer is refused


def encode_config(config: RopeConfig) -> str:
    """The ``rope`` value that carries ``config``: URL-safe base64 of its compact JSON, without padding."""
    compact = json.dumps(rope_config_to_dict(config), separators=(",", ":"))
    return base64.urlsafe_b64encode(compact.encode()).decode().rstrip("=")


def decode_config(raw: str) -> RopeConfig | None:
    """The config a ``rope`` value carries, or None when it is not one (never raises)."""
    if not raw or len(raw) > MAX_LINK_CHARS:
        return None
    try:
        data = json.loads(base64.urlsafe_b64decode(raw + "=" * (-len(raw) % 4)).decode())
        return rope_config_from_dict(data)
    except (binascii.Error, UnicodeDecodeError, ValueError, RecursionError):  # ConfigError is a ValueError
        return None


def read_link(presets: Iterable[str], default: str) -> tuple[str, RopeConfig | None, str | None]:
    """(choice, carried config or None, catalog key of a notice or None) from the URL the session opened."""
    model = st.query_params.get(MODEL_PARAM)
    if model is None:
        return default, None, None
    if model in presets:
        return model, None, None
    if model == CUSTOM:
        carried = decode_config(st.query_params.get(CONFIG_PARAM, ""))
        if carried is not None or CONFIG_PARAM not in st.query_params:
            return CUSTOM, carried, None
        return default, None, "model_rope.link_bad_config"
    return default, None, "model_rope.link_unknown_model"


def write_link(choice: str, config: RopeConfig | None) -> None:
    """Mirror the view in the URL (only what changed): the preset, or ``custom`` and the pasted config's RoPE."""
    wanted = {MODEL_PARAM: choice}
    if choice == CUSTOM and config is not None:
        wanted[CONFIG_PARAM] = encode_config(config)
    for name, value in wanted.items():
        if st.query_params.get(name) != value:
            st.query_params[name] = value
    if CONFIG_PARAM not in wanted and CONFIG_PARAM in st.query_params:
        del st.query_params[CONFIG_PARAM]
