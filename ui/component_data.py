"""What a ``st.components.v2`` element of the app is sent: its data as a one-element list, ``[payload]``.

Streamlit scans the first level of a dict it is given as ``data`` for dataframes (``is_dataframe_like`` on every
value that is a dict or a list), and that scan imports pandas and pyarrow: about 70 MB of every replica's memory, and
30–50 µs per such key of every mount (a figure's data with three: 150 µs, as a list 7 µs). A list is JSON-encoded as
it is, with no scan. The browser code unwraps it (``Array.isArray(component.data) ? component.data[0] :
component.data``, once per module that reads the data).
"""

from __future__ import annotations

from typing import Any


def component_data(payload: Any) -> list:
    """``payload`` (JSON-ready) as an element's ``data``: ``[payload]``, sent with no dataframe scan."""
    return [payload]


def sent_payload(sent: Any) -> Any:
    """What :func:`component_data` wrapped, from the element's decoded JSON (tests read what the browser gets)."""
    return sent[0] if isinstance(sent, list) else sent
