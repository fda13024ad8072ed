"""The first visitor of a freshly started server: a deep link, opened before anyone else, gets the app's own
navigation (not Streamlit's listing of the pages/ folder) and a page that works, with no manual warm-up step."""

from __future__ import annotations

from playwright.sync_api import expect

from bench.server import StreamlitServer
from tests.browser.test_browser import PAGES, real_problems, wait_for_run


def test_the_first_visitor_of_a_fresh_server_gets_the_real_navigation(page):
    with StreamlitServer() as server:  # `streamlit run app.py`, ready when /_stcore/health answers
        assert "warm-up:" in server.log_path.read_text()  # the warm-up ran before the server answered
        page.goto(f"{server.url}/rope")
        wait_for_run(page, PAGES["RoPE in the complex plane"][1])
        navigation = page.locator('[data-testid="stSidebarNav"]')
        for section in ("Start", "Absolute", "Relative", "Rotary", "Experiment"):  # st.navigation's sections
            expect(navigation).to_contain_text(section)
        expect(navigation).to_contain_text("Why positions?")  # a legacy listing names pages by their file
        assert page.locator('[data-testid="stException"]').count() == 0
        assert real_problems(page) == []
