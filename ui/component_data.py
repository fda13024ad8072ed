"""What a ``st.components.v2`` element of the app is sent: its data as a one-element list, ``[payload]``, or, for
the figures and live charts, as one binary message (:func:`packed_data`).

Streamlit scans the first level of a dict it is given as ``data`` for dataframes (``is_dataframe_like`` on every
value that is a dict or a list), and that scan imports pandas and pyarrow: about 70 MB of every replica's memory, and
30–50 µs per such key of every mount (a figure's data with three: 150 µs, as a list 7 µs). A list is JSON-encoded as
it is, with no scan; bytes are sent as they are. The browser code unwraps either (``static/packed.js``).

A figure's or live chart's numbers are typed arrays, ``{dtype, bdata}`` with the bytes in base64 (Plotly's form).
:func:`packed_data` sends their bytes as bytes after the JSON, a quarter fewer than base64 takes: the JSON's length
(4 bytes, little-endian), the JSON, zeros up to a multiple of 8, then the arrays' bytes, each array's spec holding
``"at": [offset, length]`` into them in place of ``bdata``.
"""

from __future__ import annotations

import base64
import hashlib
import json
import struct
from typing import Any

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

ALIGN = 8  # every array's bytes start at a multiple of this (a Float64Array needs 8)


KEPT = "elements_kept"  # element key -> the print of the steady part the element was last sent whole


def kept_parts(data: dict, key: str, every_run: tuple[str, ...]) -> dict:
    """``data`` as sent to the element keyed ``key`` (a live chart, the sidebar). Its steady part (all but the keys
    ``every_run``: where its sliders stand) is sent with ``data_id``, its print. In a fragment's rerun (a commit, a
    release) whose steady part is the one the element was sent before, only ``every_run`` and ``kept`` (the print)
    are sent: a commit that changes only where sliders stand sends a few hundred bytes, not every array, grid and
    word again. The browser draws from the part it holds (``static/packed.js`` ``whole``); an element that does not
    hold it (drawn anew) asks with the trigger ``missing`` (:func:`forget_kept`), and the rerun sends it all. Every
    full run sends it all (:func:`forget_all_kept`)."""
    steady = {name: value for name, value in data.items() if name not in every_run}
    print_ = hashlib.blake2b(json.dumps(steady, sort_keys=True).encode(), digest_size=8).hexdigest()
    sent = st.session_state.setdefault(KEPT, {})
    ctx = get_script_run_ctx()
    if ctx is not None and ctx.fragment_ids_this_run and sent.get(key) == print_:
        return {name: data[name] for name in every_run if name in data} | {"kept": print_}
    sent[key] = print_
    return data | {"data_id": print_}


def forget_kept(key: str) -> None:
    """The element keyed ``key`` asked for all its data (trigger ``missing``): its next run sends it."""
    st.session_state.get(KEPT, {}).pop(key, None)


def forget_all_kept() -> None:
    """At the top of every full run of a page: its elements may be drawn anew, so each is sent all its data."""
    st.session_state.pop(KEPT, None)


def component_data(payload: Any) -> list:
    """``payload`` (JSON-ready) as an element's ``data``: ``[payload]``, sent with no dataframe scan."""
    return [payload]


def packed_data(payload: Any) -> bytes:
    """``payload`` (JSON-ready, its typed arrays as ``{dtype, bdata}``) as one binary message (the module's
    docstring): the arrays' bytes unencoded after the JSON."""
    blobs: list[bytes] = []
    size = 0

    def hoist(value):
        nonlocal size
        if isinstance(value, dict):
            if isinstance(value.get("bdata"), str) and isinstance(value.get("dtype"), str):
                raw = base64.b64decode(value["bdata"])
                pad = -size % ALIGN
                blobs.append(b"\0" * pad + raw)
                spec = {key: item for key, item in value.items() if key != "bdata"}
                spec["at"] = [size + pad, len(raw)]
                size += pad + len(raw)
                return spec
            return {key: hoist(item) for key, item in value.items()}
        if isinstance(value, (list, tuple)):
            return [hoist(item) for item in value]
        return value

    text = json.dumps(hoist(payload), separators=(",", ":"), ensure_ascii=False).encode()
    head = struct.pack("<I", len(text)) + text
    return head + b"\0" * (-len(head) % ALIGN) + b"".join(blobs)


def unpacked(raw: bytes) -> Any:
    """What :func:`packed_data` packed, its arrays back in base64 (``{dtype, bdata}``), as the tests read it."""
    (length,) = struct.unpack_from("<I", raw)
    start = 4 + length + (-(4 + length) % ALIGN)
    arrays = raw[start:]

    def restore(value):
        if isinstance(value, dict):
            if isinstance(value.get("at"), list) and isinstance(value.get("dtype"), str):
                offset, size = value["at"]
                spec = {key: item for key, item in value.items() if key != "at"}
                spec["bdata"] = base64.b64encode(arrays[offset : offset + size]).decode("ascii")
                return spec
            return {key: restore(item) for key, item in value.items()}
        if isinstance(value, list):
            return [restore(item) for item in value]
        return value

    return restore(json.loads(raw[4 : 4 + length]))


def sent_payload(sent: Any) -> Any:
    """What :func:`component_data` wrapped, from the element's decoded JSON (tests read what the browser gets)."""
    return sent[0] if isinstance(sent, list) else sent


def sent_data(proto) -> Any:
    """What an element (a ``BidiComponent`` proto) was given as data, packed (:func:`packed_data`) or as JSON."""
    if proto.WhichOneof("data") == "bytes":
        return unpacked(proto.bytes)
    return sent_payload(json.loads(proto.json)) if proto.json else None


def sent_size(proto) -> int:
    """Bytes of an element's data as sent: its binary message or its JSON."""
    return len(proto.bytes) if proto.WhichOneof("data") == "bytes" else len(proto.json)
