"""The glossary: every concept of the term base in three languages with a one-line definition from each catalog,
and the page that lines them up."""

import tomllib

import pytest
from conftest import tables

from ui.i18n import LANGUAGES, LOCALES, catalog, text

DEFINITIONS = "glossary.definitions."


def glossary_concepts() -> list[str]:
    """The concepts the glossary lists, read from the term base itself (not through ui.terms)."""
    with open(LOCALES / "terms.toml", "rb") as handle:
        terms = tomllib.load(handle)["terms"]
    return [concept for concept, entry in terms.items() if entry.get("glossary", True)]


def definition_keys(lang: str) -> list[str]:
    return [key.removeprefix(DEFINITIONS) for key in catalog(lang) if key.startswith(DEFINITIONS)]


# Concepts the pages name again and again: each must be in the glossary.
USED_BY_THE_PAGES = ["pair", "feature", "score", "layer", "held_out", "bias", "bucket", "slope", "wavelength",
                     "context_window", "extrapolation", "base", "head", "learned_embedding"]  # fmt: skip


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_every_concept_has_a_definition_in_every_language(lang):
    concepts = glossary_concepts()
    assert set(USED_BY_THE_PAGES) <= set(concepts)
    assert sorted(definition_keys(lang)) == sorted(concepts)  # a definition for each concept, none left over
    strings = catalog(lang)
    assert all(strings[DEFINITIONS + concept].strip() for concept in concepts)
    assert all("\n" not in strings[DEFINITIONS + concept] for concept in concepts)  # one line each


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_glossary_page_lines_up_the_three_languages_and_defines_in_the_readers(open_page, lang):
    at = open_page("pages/glossary.py", query={"lang": lang})
    assert not at.exception
    assert at.title[0].value == text(lang, "glossary.title")
    (table,) = tables(at)
    definition = text(lang, "glossary.column_definition")
    assert list(table.columns) == [*LANGUAGES.values(), definition]
    assert len(table.rows) == len(glossary_concepts())
    rows = [dict(zip(table.columns, row, strict=True)) for row in table.rows]

    def row_of(english: str) -> dict:
        (found,) = [row for row in rows if row["English"] == english]  # exactly one row
        return found

    positional = row_of("positional encoding")
    assert positional["한국어"] == "위치 인코딩" and positional["中文"] == "位置编码"
    assert row_of("layer")[definition] == text(lang, "glossary.definitions.layer")
    logit = row_of("logit (score before softmax)")  # a gloss in each language's own brackets
    assert logit["한국어"] == "로짓(소프트맥스 이전 점수)"
