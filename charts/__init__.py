"""What the pages draw, cached: one module per page (``charts/rope.py`` for ``pages/rope.py``), keyed by scalar inputs.

Streamlit runs a page's source on every rerun, so a ``@st.cache_data`` / ``@st.cache_resource`` function defined in
a page is decorated again each time, and the decorator reads the function's source to key its cache (a fraction of a
millisecond each, several per page). Defined here, in an imported module, each is decorated once per process.

These modules may use Streamlit's caches, ``posenc``, ``figures`` and ``ui.i18n``, never the session state: the
language arrives as an argument (``lang``), so it is part of every cache key.

A live chart's slices (``ui.live.sliced``) are made of many small pictures, one per value of each of its sliders,
and a release of one slider recomputes the other sliders' rows. Those picture functions are pure functions of
scalars, cached with ``ui.once.computed_once(maxsize=…)`` (bounded, shared by every session like
``st.cache_resource``, one thread computing each entry): a Streamlit cache spends about as long making its key as
such a picture takes to compute. Their arrays are read, never changed.

So are the figures, live charts' data, tables and checkpoint answers of the six pages with shared controls
(sinusoidal, relative, relative_scores, rope, decay, and the checkpoints): a commit reads a dozen of them, and a
Streamlit cache's hit costs ~0.2 ms (its key hashed, its arguments' names looked up, a cache_data value unpickled)
against ~0.2 µs for ``computed_once``'s (docs/performance.md, session 28). What they return is shared, so it is
read, never changed.
"""

from posenc._random import remember_draws
from ui.once import computed_once

# Entries kept of a chart (a built figure, a live chart's data) keyed by the shared controls: enough for the settings a
# class moves between (the teacher's three values of three controls are 27 settings, in each language in use), so a
# replica that drew a setting once serves it again to every session; each entry is a figure or a live chart's data
# of 10–200 kB, so 64 of one chart stay within about 13 MB.
SHARED_ENTRIES = 64

# The illustrations' seeded draws at the largest sizes (posenc._random.leading_blocks) are made once per process and
# shared by every session, one thread computing each (posenc keeps no cache of its own).
remember_draws(computed_once(maxsize=16))
