"""Positional Encoding Lab — the script of every visit: page config, language and navigation.

``app.py`` serves it (``streamlit run app.py``). Streamlit runs this file on every rerun and the chosen page runs
inside it. Each page draws the shared sidebar controls it needs itself (``ui.shared.use_shared_controls``), so it
also runs on its own. Page and section titles come from the student's language catalog (``locales/``).
"""

from pathlib import Path

import streamlit as st
import torch

from ui.language import init_language, t

# One torch thread per server process: concurrency comes from sessions, and on a busy 2-core machine torch's own
# thread pool makes the small tensor ops of a rerun up to 100× slower than running them on one thread.
torch.set_num_threads(1)

# A local icon: a ":material/…:" page icon would make the browser fetch the favicon from the internet.
ICON = Path(__file__).parent / "assets" / "icon.png"
st.set_page_config(page_title=t("app.title"), page_icon=str(ICON), layout="wide")
init_language()

# section -> [(file, title key, icon)]
PAGES = {
    "app.section_start": [
        ("pages/home.py", "app.page_home", ":material/home:"),
        ("pages/glossary.py", "app.page_glossary", ":material/translate:"),
    ],
    "app.section_absolute": [("pages/sinusoidal.py", "app.page_sinusoidal", ":material/waves:")],
    "app.section_relative": [
        ("pages/relative.py", "app.page_relative", ":material/compare_arrows:"),
        ("pages/relative_scores.py", "app.page_relative_scores", ":material/join_inner:"),
    ],
    "app.section_rotary": [
        ("pages/rope.py", "app.page_rope", ":material/rotate_right:"),
        ("pages/decay.py", "app.page_decay", ":material/trending_down:"),
    ],
    "app.section_experiment": [("pages/toy_model.py", "app.page_toy", ":material/calculate:")],
}

navigation = {
    t(section): [
        st.Page(path, title=t(title), icon=icon, default=path == "pages/home.py") for path, title, icon in pages
    ]
    for section, pages in PAGES.items()
}
st.navigation(navigation).run()
