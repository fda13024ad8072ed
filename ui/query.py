"""Reading shared controls from a URL query string: parse, validate, clamp. Plain Python: no Streamlit.

Query values arrive as untrusted strings (``?dim=abc``, ``?length=10**9``, ``?base=-1``, markup). Every value becomes a
sane setting; every correction becomes a short notice that never repeats the visitor's text (so nothing they typed
is rendered back into the page). A notice is a catalog key with its parameters (``ui.i18n``), so it can be shown in
the student's language.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from ui.limits import LIMITS, SHARED_NAMES, shared_default

MAX_PARAM_CHARS = 32  # longer than any valid number: anything past this is rejected unread

Notice = tuple[str, dict]  # (catalog key, its parameters)


def parse_shared_params(params: Mapping[str, str | list[str]]) -> tuple[dict[str, float | int], list[Notice]]:
    """Return (values for every shared control present in ``params``, notices about corrected values)."""
    values: dict[str, float | int] = {}
    notices: list[Notice] = []
    for name in SHARED_NAMES:
        if name not in params:
            continue
        raw = params[name]
        if isinstance(raw, list):  # ?dim=8&dim=16: the last one wins, as in st.query_params
            raw = raw[-1] if raw else ""
        value, notice = _parse_one(name, str(raw))
        values[name] = value
        if notice:
            notices.append(notice)
    return values, notices


def _parse_one(name: str, raw: str) -> tuple[float | int, Notice | None]:
    default = shared_default(name)
    number = _to_number(raw)
    if number is None:
        return default, ("notices.not_a_number", {"name": name, "value": default})
    if name == "base":
        return _snap_base(number)
    low, high = getattr(LIMITS, f"{name}_min"), getattr(LIMITS, f"{name}_max")
    value = min(max(round(number), low), high)
    if name == "dim" and value % 2:
        value = value + 1 if value < high else value - 1  # dimensions come in pairs
    if value == number:
        return value, None
    if not low <= number <= high:
        return value, ("notices.out_of_range", {"name": name, "low": low, "high": high, "value": value})
    if name == "dim" and round(number) % 2:
        return value, ("notices.odd_dim", {"value": value})
    return value, ("notices.not_whole", {"name": name, "value": value})


def _snap_base(number: float) -> tuple[float, Notice | None]:
    options = LIMITS.base_options
    if number <= 1:
        return LIMITS.base_default, ("notices.base_too_small", {"value": LIMITS.base_default})
    nearest = min(options, key=lambda option: abs(math.log(option) - math.log(number)))
    if nearest != number:
        return nearest, ("notices.base_snapped", {"value": nearest})
    return nearest, None


def _to_number(raw: str) -> float | None:
    text = raw.strip()
    if not text or len(text) > MAX_PARAM_CHARS:
        return None
    try:
        number = float(text)
    except ValueError:
        return None
    return number if math.isfinite(number) else None
