"""Placeholder home."""

import streamlit as st

from ui.shared import use_shared_controls

use_shared_controls()
st.title("Positional Encoding Lab")
