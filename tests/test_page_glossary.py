"""The glossary: every term in three languages with a one-line definition, and the page that lines them up."""

import pytest

from ui.i18n import LANGUAGES, catalog, text

TERMS = "glossary.terms."
DEFINITIONS = "glossary.definitions."


def glossary_keys(lang: str, prefix: str) -> list[str]:
    return [key.removeprefix(prefix) for key in catalog(lang) if key.startswith(prefix)]


# Concepts the pages name again and again: each must be in the glossary.
USED_BY_THE_PAGES = ["pair", "feature", "score", "layer", "held_out", "bias", "bucket", "slope", "wavelength",
                     "context_window", "extrapolation", "base", "head", "learned_embedding"]  # fmt: skip


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_every_term_has_a_word_and_a_definition_in_every_language(lang):
    terms = glossary_keys(lang, TERMS)
    assert set(USED_BY_THE_PAGES) <= set(terms)
    assert glossary_keys(lang, DEFINITIONS) == terms  # same terms, same order
    strings = catalog(lang)
    assert all(strings[TERMS + term].strip() and strings[DEFINITIONS + term].strip() for term in terms)
    assert all("\n" not in strings[DEFINITIONS + term] for term in terms)  # one line each


def test_terms_are_distinct_words_in_each_language():
    for lang in LANGUAGES:
        words = [catalog(lang)[TERMS + term] for term in glossary_keys(lang, TERMS)]
        assert len(set(words)) == len(words), lang


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_glossary_page_lines_up_the_three_languages_and_defines_in_the_readers(open_page, lang):
    at = open_page("pages/glossary.py", query={"lang": lang})
    assert not at.exception
    assert at.title[0].value == text(lang, "glossary.title")
    table = at.table[0].value
    definition = text(lang, "glossary.column_definition")
    assert list(table.columns) == [*LANGUAGES.values(), definition]
    assert len(table) == len(glossary_keys("en", TERMS))
    positional = table[table["English"] == "positional encoding"]
    assert positional["한국어"].item() == "위치 인코딩" and positional["中文"].item() == "位置编码"
    layer = table[table["English"] == "layer"]
    assert layer[definition].item() == text(lang, "glossary.definitions.layer")
