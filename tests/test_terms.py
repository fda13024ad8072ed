"""The term base (locales/terms.toml): well formed, and no catalog string uses a variant it rules out."""

import re
import tomllib

import pytest

from ui.i18n import LANGUAGES, LOCALES, catalog

FIELDS = {"glossary"} | {f"{lang}{suffix}" for lang in LANGUAGES for suffix in ("", "_note", "_avoid")}


def load_terms() -> dict[str, dict]:
    with open(LOCALES / "terms.toml", "rb") as handle:
        return tomllib.load(handle)["terms"]


TERMS = load_terms()


def variant_pattern(variant: str) -> re.Pattern:
    """Where ``variant`` is used as a word: a Latin or Korean variant must start a word (밑 is not inside 바로밑,
    "seed" is not inside "seeds"), and Korean particles may follow it (밑이, 밑을); Chinese has no word breaks."""
    escaped = re.escape(variant)
    if re.match(r"[A-Za-z]", variant):
        return re.compile(rf"(?<![A-Za-z_]){escaped}(?![A-Za-z_])", re.IGNORECASE)
    if re.match(r"[가-힣]", variant):
        return re.compile(rf"(?<![가-힣]){escaped}")
    return re.compile(escaped)


def prose(text: str) -> str:
    """The running text of a catalog string: `code`, $math$, $$display math$$ and {placeholders} left out."""
    text = re.sub(r"\$\$.*?\$\$", " ", text, flags=re.DOTALL)
    text = re.sub(r"\$[^$]*\$", " ", text)
    text = re.sub(r"`[^`]*`", " ", text)
    return re.sub(r"\{[A-Za-z_0-9]*\}", " ", text)


def uses(text: str, variant: str) -> bool:
    return bool(variant_pattern(variant).search(prose(text)))


def test_the_matcher_finds_words_not_pieces_of_words():
    assert uses("밑이 클수록 느린 쌍은 더 느려집니다.", "밑")
    assert uses("base (밑)", "밑")
    assert not uses("그래프 바로밑", "밑")
    assert uses("무작위 q, k (seed 0)", "seed") and uses("Seed 0", "seed")
    assert not uses("seeds and reseeded", "seed")
    assert not uses("`softmax(x)` 와 $\\mathrm{softmax}$", "softmax")
    assert not uses("밑 {base}", "base")  # a placeholder is not a word
    assert uses("学习到的表", "学习到的")


def test_the_term_base_is_well_formed():
    assert TERMS and all(re.fullmatch(r"[a-z][a-z_]*", concept) for concept in TERMS)
    for concept, entry in TERMS.items():
        assert set(entry) <= FIELDS and {*LANGUAGES} <= set(entry), concept
        assert isinstance(entry.get("glossary", True), bool), concept
        assert entry["en"].strip() and entry["ko"].strip(), concept
        for lang in LANGUAGES:
            avoid = entry.get(f"{lang}_avoid", [])
            assert isinstance(avoid, list) and all(isinstance(v, str) and v.strip() for v in avoid), concept
            assert len(set(avoid)) == len(avoid), concept
            assert all(isinstance(entry.get(f"{lang}{field}", ""), str) for field in ("", "_note")), concept


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_every_glossary_concept_has_a_word_in_every_language_and_no_two_share_one(lang):
    words = [entry[lang] for entry in TERMS.values() if entry.get("glossary", True)]
    assert all(word.strip() for word in words)
    assert len(set(words)) == len(words)


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_no_approved_word_is_a_variant_to_avoid(lang):
    approved = {concept: entry[lang] for concept, entry in TERMS.items() if entry[lang]}
    avoided = [variant for entry in TERMS.values() for variant in entry.get(f"{lang}_avoid", [])]
    clashes = [(concept, word, v) for concept, word in approved.items() for v in avoided if uses(word, v)]
    assert not clashes


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_no_catalog_string_uses_a_variant_the_term_base_rules_out(lang):
    variants = [(concept, v) for concept, entry in TERMS.items() for v in entry.get(f"{lang}_avoid", [])]
    found = {
        key: [f"{concept}: {variant}" for concept, variant in variants if uses(text, variant)]
        for key, text in catalog(lang).items()
    }
    bad = {key: hits for key, hits in found.items() if hits}
    assert not bad, "\n".join(f"{key}: {', '.join(hits)}" for key, hits in bad.items())


def test_the_floor_keeps_its_word_wherever_the_english_names_it():
    """Where the extrapolation page's English says "floor" (the source's own loss, the lowest a chart shows), ko and
    zh write the approved word of terms.floor (decay's "floor and ceil" is rounding, another meaning)."""
    english = {key: prose(value) for key, value in catalog("en").items() if key.startswith("extrapolation.")}
    named = [key for key, value in english.items() if re.search(r"\bfloor\b", value)]
    assert named
    for lang in ("ko", "zh"):
        strings = catalog(lang)
        assert not [key for key in named if TERMS["floor"][lang] not in prose(strings[key])], lang
