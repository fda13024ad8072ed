"""Placeholder: this page is being written."""

import streamlit as st

from ui.shared import use_shared_controls

use_shared_controls("base", "dim", "length", "heads")
st.title("decay")
