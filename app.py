"""Positional Encoding Lab — the Streamlit entry point: page config and navigation.

Streamlit runs this file on every rerun and the chosen page runs inside it. Each page draws the shared sidebar
controls it needs itself (``ui.shared.use_shared_controls``), so it also runs on its own.
"""

from pathlib import Path

import streamlit as st
import torch

# One torch thread per server process: concurrency comes from sessions, and on a busy 2-core machine torch's own
# thread pool makes the small tensor ops of a rerun up to 100× slower than running them on one thread.
torch.set_num_threads(1)

# A local icon: a ":material/…:" page icon would make the browser fetch the favicon from the internet.
ICON = Path(__file__).parent / "assets" / "icon.png"
st.set_page_config(page_title="Positional Encoding Lab", page_icon=str(ICON), layout="wide")

PAGES = {
    "Start": [
        st.Page("pages/home.py", title="Why positions?", icon=":material/home:", default=True),
    ],
    "Absolute": [
        st.Page("pages/sinusoidal.py", title="Sinusoidal encoding", icon=":material/waves:"),
    ],
    "Relative": [
        st.Page("pages/relative.py", title="Relative positions", icon=":material/compare_arrows:"),
    ],
    "Rotary": [
        st.Page("pages/rope.py", title="RoPE in the complex plane", icon=":material/rotate_right:"),
        st.Page("pages/decay.py", title="Long-range decay and context", icon=":material/trending_down:"),
    ],
}

st.navigation(PAGES).run()
