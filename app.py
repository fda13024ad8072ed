"""Positional Encoding Lab's server: ``streamlit run app.py`` (a laptop, Docker, every replica of a hosted class).

``st.App`` serves ``navigation.py`` (page config, language, navigation), the script Streamlit runs for each
visitor on every rerun, and warms the process up before it accepts its first connection (``ui.startup``): the
health check answers only once torch is imported and the shared caches are filled, so the first students of a
class find a ready server.
"""

import streamlit as st

from ui.startup import lifespan

app = st.App("navigation.py", lifespan=lifespan)
