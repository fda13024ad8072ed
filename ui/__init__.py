"""Streamlit helpers shared by the pages: shared controls mirrored in the URL, and the "show the code" expander.

Only this package, ``charts`` and the page files import Streamlit; ``ui.limits``, ``ui.query`` and ``ui.toy_training``
(the toy page's training thread) are plain Python.
"""
