"""Positional Encoding Lab — the script of every visit: page config, language and navigation.

``app.py`` serves it (``streamlit run app.py``). Streamlit runs this file on every rerun and the chosen page runs
inside it. The pages and their sections are listed once, in ``ui/menu.py``. Each page draws the shared sidebar
controls it needs itself (``ui.shared.use_shared_controls``), so it also runs on its own. Page and section titles
come from the student's language catalog (``locales/``).
"""

from pathlib import Path

import streamlit as st
import torch

from ui.fit import fit_formulas_to_column
from ui.language import current_language, init_language, t
from ui.menu import HOME, sections
from ui.presenter import presenting

# One torch thread per server process: concurrency comes from sessions, and on a busy 2-core machine torch's own
# thread pool makes the small tensor ops of a rerun up to 100× slower than running them on one thread.
torch.set_num_threads(1)

# A local icon: a ":material/…:" page icon would make the browser fetch the favicon from the internet.
ICON = Path(__file__).parent / "assets" / "icon.png"
MENU = "navigation_menu"  # (language, the pages by section) of this session
# Presenter mode (``?present=1``) opens with the sidebar collapsed: the projector shows the page, not the controls.
sidebar = "collapsed" if presenting() else "auto"
st.set_page_config(page_title=t("app.title"), page_icon=str(ICON), layout="wide", initial_sidebar_state=sidebar)
init_language()
fit_formulas_to_column()  # every display formula fits its column, in every language and window size


def menu() -> dict[str, list]:
    """The pages by section, titled in the student's language. Made once per session and language: each
    ``st.Page`` resolves its file on disk, and under a class's page step those calls were a tenth of a run."""
    made = st.session_state.get(MENU)
    if made is None or made[0] != current_language():
        pages = {t(section): [st.Page(page.path, title=t(page.title_key), icon=page.icon, default=page == HOME)
                              for page in pages] for section, pages in sections().items()}  # fmt: skip
        made = st.session_state[MENU] = (current_language(), pages)
    return made[1]


# expanded: every page listed; a folded menu says "View N more" in English whatever the student's language
st.navigation(menu(), expanded=True).run()
