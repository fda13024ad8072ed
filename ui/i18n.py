"""Translated text: one catalog per language in ``locales/<lang>/``, looked up by dotted key. No Streamlit.

A language's catalog is the folder ``locales/<lang>/``: one TOML file per topic (``app.toml`` for the shell,
``home.toml``, ``sinusoidal.toml`` …), each holding the section of that name, so a key reads ``home.title``.

``text("ko", "shared.dim_label")`` returns the Korean string; a key a language lacks falls back to English, and a key
English lacks comes back as ``⟦key⟧`` so it is visible in the page and caught by the tests. Placeholders use
``str.format`` (``{value}``); every language must use the same placeholders as English (tests/test_i18n.py checks).
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from ui.once import computed_once

LOCALES = Path(__file__).resolve().parents[1] / "locales"
LANGUAGES = {"en": "English", "ko": "한국어", "zh": "中文"}  # code -> the language's own name
DEFAULT_LANGUAGE = "en"


@computed_once
def catalog(lang: str) -> dict[str, str]:
    """Every string of ``lang`` as {dotted key: text}. TOML sections become key prefixes."""
    strings: dict[str, str] = {}
    for path in sorted((LOCALES / lang).glob("*.toml")):
        with open(path, "rb") as handle:
            strings.update(_flatten(tomllib.load(handle)))
    return strings


def _flatten(table: dict, prefix: str = ""):
    for key, value in table.items():
        if isinstance(value, dict):
            yield from _flatten(value, f"{prefix}{key}.")
        else:
            yield f"{prefix}{key}", str(value)


def text(lang: str, key: str, **params) -> str:
    """The string for ``key`` in ``lang`` (English if that language lacks it), with ``params`` filled in."""
    template = catalog(lang).get(key) if lang in LANGUAGES else None
    if template is None:
        template = catalog(DEFAULT_LANGUAGE).get(key)
    if template is None:
        return f"⟦{key}⟧"
    return template.format(**params) if params else template


def language_from(raw: object) -> tuple[str, bool]:
    """A language code from an untrusted value (a URL parameter): (code, whether it was valid)."""
    if isinstance(raw, list):
        raw = raw[-1] if raw else ""
    code = str(raw).strip().lower()[:8]
    return (code, True) if code in LANGUAGES else (DEFAULT_LANGUAGE, False)


GROUP_SEPARATOR = {"zh": " "}  # zh running text groups digits with a space (GB/T 15835); en and ko with a comma


def number(lang: str, value: int | float, spec: str = "") -> str:
    """A number as ``lang``'s running text writes it, the digits before the point in groups of three: 2,048 (en, ko),
    2 048 (zh); ``spec`` is the rest of a format spec for a float (``".0f"``: 62,832; ``".1f"``: 62,831.9)."""
    return format(value, "," + spec).replace(",", GROUP_SEPARATOR.get(lang, ","))


def shown_number(lang: str, value):
    """A value for running text: a whole number (int or float) grouped as ``lang`` writes it (:func:`number`),
    another number as Python's shortest form (0.5), anything else as it is."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return value
    return number(lang, int(value)) if float(value).is_integer() else f"{value:g}"


def shown_values(lang: str, params: dict) -> dict:
    """A template's parameters with every number as ``lang``'s running text writes it (:func:`shown_number`)."""
    return {name: shown_number(lang, value) for name, value in params.items()}


FULL_WIDTH_ENDS = "。！？：；）」』"  # Chinese (and Japanese) sentences end with these and need no space after them


def sentences(*parts: str) -> str:
    """Sentences joined as their language writes them: a space after "." or "?", none after "。" or "？"; empty
    parts left out."""
    joined = ""
    for part in (part for part in parts if part):
        joined += part if not joined or joined.endswith(tuple(FULL_WIDTH_ENDS)) else " " + part
    return joined
