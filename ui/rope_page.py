"""The opening of the two RoPE pages: the shared base and dim, the page's title and introduction, and a message
instead of the page when RoPE cannot use the settings (posenc raises for them)."""

import streamlit as st

from posenc.rope import rope_inv_freq
from ui.language import t
from ui.shared import use_shared_controls


def open_rope_page(title_key: str, intro_key: str) -> tuple[float, int]:
    """Draw the shared controls, the title and the introduction; return (base, dim), or stop the page with a
    message when θ_i = base^(−2i/dim) is not defined for them."""
    shared = use_shared_controls("base", "dim", by_section=True)  # every part below the title is a section
    st.title(t(title_key))
    st.markdown(t(intro_key))
    base, dim = float(shared["base"]), int(shared["dim"])
    try:
        rope_inv_freq(dim, base)
    except ValueError:
        st.error(t("rope.bad_settings", dim=dim, base=f"{base:g}"))
        st.stop()
    return base, dim
