"""Every page in Chinese groups the digits of its numbers as Chinese running text does, 8 192 and never 8,192, and
(a spot check of numbers the app fills in) English with commas, 10,000 and never 10 000 or 10000 (issue 38's
follow-up: the pages of issue 37 quoted f"{n:,}" numbers beside the catalog's own "4 000"). Independent of how the
app formats them: each page is opened under AppTest in the settings that bring out its long numbers (every preset of
"Your model's RoPE", every stack of "RoPE layer by layer", every KV-cache case), every predict-first question is
answered with each of its choices, and what a reader sees is read back: titles, markdown, captions, the boxes, table
cells, the options of radios and sliders and the figures' titles, code spans and LaTeX left out."""

from __future__ import annotations

import inspect
import json
import re

import pytest
from conftest import ROOT, answer_words, figures, shown_texts, words_parts, words_question
from streamlit.testing.v1 import AppTest

from charts.kv_cache import KV_CASES
from charts.rope_layers import STACK_MODELS
from ui.menu import PAGES

PRESETS = [preset["id"] for preset in json.loads((ROOT / "assets" / "model_configs.json").read_text())["presets"]]
COMMA_GROUP = re.compile(r"\d,\d{3}(?!\d)")  # 8,192 (a list, "3, 7", has a space after its comma)
CODE_AND_MATH = re.compile(r"```.*?```|`[^`]*`|\$\$.*?\$\$|\$[^$\n]*\$", re.DOTALL)
VIEWS = [(page.path, {}, {}) for page in PAGES]  # (page, query, session state)
VIEWS += [("pages/model_rope.py", {"model": preset}, {}) for preset in PRESETS]
VIEWS += [("pages/rope_layers.py", {}, {"rope_layers_model": model}) for model in STACK_MODELS]
VIEWS += [("pages/inference.py", {}, {"inference_kv_case": case}) for case in KV_CASES]


def shown(at: AppTest) -> list[str]:
    """What a reader sees of the last run, as text, code spans and LaTeX left out."""
    texts = [element.value for kind in ("title", "header", "subheader", "markdown", "caption", "info", "warning",
                                        "success", "error") for element in at.get(kind)]  # fmt: skip
    texts += [table.value.to_string() for kind in ("table", "dataframe") for table in at.get(kind)]
    texts += [" | ".join(widget.options) for kind in ("radio", "select_slider", "selectbox") for widget in at.get(kind)]
    texts += [figure["layout"].get("title", {}).get("text", "") for figure in figures(at)]
    texts += shown_texts(words_parts(at))  # what the browser draws (ui.words)
    return [CODE_AND_MATH.sub(" ", text) for text in texts]


def choices(at: AppTest, key: str) -> list:
    """The values a checkpoint offers (ui.checkpoint formats each by its ``choices`` mapping: value -> words)."""
    return list(inspect.getclosurevars(at.radio(key=key).format_func).nonlocals["choices"])


def read_page(open_page, path: str, lang: str, query: dict, state: dict) -> list[str]:
    """The page's text as opened, then the verdict of every choice of every predict-first question."""
    at = open_page(path, query={"lang": lang} | query, state=state)
    assert not at.exception, at.exception
    texts = shown(at)
    for key in [radio.key for radio in at.radio if (radio.key or "").startswith("cp_")]:
        for value in choices(at, key):
            at.radio(key=key).set_value(value)
            at.button(key=key.replace("_choice", "_check")).click().run()
            assert not at.exception, at.exception
            texts += [box.value for kind in ("success", "error") for box in at.get(kind)]
    for question in [part for part in words_parts(at) if part["kind"] == "question"]:  # the browser's questions
        for pick in range(len(question["choices"])):
            texts += shown_texts([words_question(answer_words(at, question["key"], {"pick": pick}), question["key"])])
    return texts


def ids(view) -> str:
    path, query, state = view
    return "-".join([path.removeprefix("pages/").removesuffix(".py"), *query.values(), *state.values()])


@pytest.mark.parametrize("view", VIEWS, ids=ids)
def test_chinese_groups_digits_with_a_space_and_never_a_comma(open_page, view):
    path, query, state = view
    texts = read_page(open_page, path, "zh", query, state)
    commas = {
        text[max(0, found.start() - 12) : found.end() + 6] for text in texts for found in COMMA_GROUP.finditer(text)
    }
    assert not commas, commas


SPOT_CHECKS = [  # numbers the app fills in (no catalog writes them itself), where a page shows them
    (("pages/rope_layers.py", {}, {"rope_layers_model": "llama-4-scout"}), 1_000_000),  # the reach question's text
    (("pages/inference.py", {}, {"inference_kv_case": "longrope"}), 10_000),  # the moved chunk's prefix
    (("pages/model_rope.py", {"model": "llama-3.1-8b"}, {}), 131_072),  # Llama 3.1's declared context
    (("pages/decay.py", {}, {}), 54_410),  # the slowest wavelength of Llama 2 in the table, 2π·10000^(126/128)
    (("pages/sinusoidal.py", {}, {}), 65_536),  # the learned table's 512 × 128 parameters
]


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize(("view", "value"), SPOT_CHECKS, ids=[ids(view) for view, _ in SPOT_CHECKS])
def test_a_long_number_is_grouped_as_the_language_writes_it(open_page, lang, view, value):
    """The same number in English with commas (131,072) and in Chinese with spaces (131 072), never the other way or
    ungrouped."""
    path, query, state = view
    text = "\n".join(read_page(open_page, path, lang, query, state))
    groups = re.findall(r"\d{1,3}(?=(?:\d{3})*$)", str(value))  # 131072 -> ["131", "072"]
    written = {separator: separator.join(groups) for separator in (",", " ", "")}
    expected = "," if lang == "en" else " "
    alone = r"(?<![\d,])(?<!\d ){}(?![\d,])(?! \d)"  # the whole number, not a part of a longer one
    assert re.search(alone.format(written[expected]), text), (lang, written[expected])
    for other in set(written) - {expected}:
        assert not re.search(alone.format(written[other]), text), (lang, written[other])
