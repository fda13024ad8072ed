"""What the pages draw, cached: one module per page (``charts/rope.py`` for ``pages/rope.py``), keyed by scalar inputs.

Streamlit runs a page's source on every rerun, so a ``@st.cache_data`` / ``@st.cache_resource`` function defined in
a page is decorated again each time, and the decorator reads the function's source to key its cache (a fraction of a
millisecond each, several per page). Defined here, in an imported module, each is decorated once per process.

These modules may use Streamlit's caches, ``posenc``, ``figures`` and ``ui.i18n``, never the session state: the
language arrives as an argument (``lang``), so it is part of every cache key.
"""
