"""Positional Encoding Lab's server: ``streamlit run app.py`` (a laptop, Docker, every replica of a hosted class).

``st.App`` serves ``navigation.py`` (page config, language, navigation), the script Streamlit runs for each
visitor on every rerun, and warms the process up before it accepts its first connection (``ui.startup``): the
health check answers only once torch is imported and the shared caches are filled, so the first students of a
class find a ready server. ``ui.http`` keeps the script health check to the replica's own host and versions the
live charts' script. ``ui.class_http`` adds the two small routes a class's tabs poll (``class/state``,
``class/beat``): a store read each, no script run; ``ui.commit_http`` the route a shared-control commit takes when it
reruns nothing (``shared/commit``).
"""

import streamlit as st
from starlette.middleware import Middleware

from ui.class_http import ROUTES as CLASS_ROUTES
from ui.commit_http import ROUTES as COMMIT_ROUTES
from ui.http import LabHttpGuard
from ui.startup import lifespan

ROUTES = [*CLASS_ROUTES, *COMMIT_ROUTES]
app = st.App("navigation.py", lifespan=lifespan, routes=ROUTES, middleware=[Middleware(LabHttpGuard)])
