"""The three catalogs: same keys, same placeholders, every key the code asks for exists, links choose the language."""

import re
import string
from pathlib import Path

import pytest

from ui.i18n import DEFAULT_LANGUAGE, LANGUAGES, catalog, language_from, number, text

ROOT = Path(__file__).resolve().parents[1]
OTHERS = [lang for lang in LANGUAGES if lang != DEFAULT_LANGUAGE]


def placeholders(template: str) -> set[str]:
    return {field for _, field, _, _ in string.Formatter().parse(template) if field is not None}


@pytest.mark.parametrize("lang", OTHERS)
def test_every_language_has_every_key_and_no_extra(lang):
    assert set(catalog(lang)) == set(catalog(DEFAULT_LANGUAGE))


@pytest.mark.parametrize("lang", OTHERS)
def test_placeholders_match_english(lang):
    english = catalog(DEFAULT_LANGUAGE)
    different = {
        key: value for key, value in catalog(lang).items() if placeholders(value) != placeholders(english[key])
    }
    assert not different


@pytest.mark.parametrize("lang", OTHERS)
def test_translations_are_not_english_copies(lang):
    """A string identical to English is allowed only for names, formulas and the terms the language's writers keep in
    Latin letters (the term base says which: Korean writes base), so no other lowercase English word outside the
    {placeholders}."""
    from ui.terms import term_base

    latin = {entry[lang] for entry in term_base().values() if re.fullmatch(r"[a-z][a-z ]*", entry[lang])}
    english = catalog(DEFAULT_LANGUAGE)
    copied = [
        key
        for key, value in catalog(lang).items()
        if value == english[key] and set(re.findall(r"\b[a-z]{4,}\b", re.sub(r"\{[^{}]*\}", "", value))) - latin
    ]
    assert not copied


def test_korean_picks_its_particles_instead_of_writing_both():
    """A particle printed in both forms ("은(는)", "을(를)", "(으)로") reads as a form to fill in, not as Korean: every
    string chooses the particle from its word or is phrased so that no particle follows a filled-in value."""
    both_forms = re.compile(r"\((?:은|는|을|를|이|가|와|과|으)\)")  # 은(는), (을)를, (으)로, …
    assert not {key: value for key, value in catalog("ko").items() if both_forms.search(value)}


def literal_keys_in_code() -> set[str]:
    """Every t("section.key"), notice("section.key") and text(lang, "section.key") with a literal key in the app's
    Python files."""
    call = r"""\b(?:t\(|notice\(|text\(\s*lang\s*,)\s*["']([a-z_]+\.[a-z0-9_]+)["']"""
    folders = ("pages", "ui", "charts")
    files = [ROOT / "navigation.py", *(path for folder in folders for path in (ROOT / folder).glob("*.py"))]
    keys = set()
    for path in files:
        keys |= set(re.findall(call, path.read_text()))
    return keys


def test_every_key_the_code_asks_for_exists():
    keys = literal_keys_in_code()
    assert {"home.title", "home.attention_notice"} <= keys  # the scan itself works
    assert keys <= set(catalog(DEFAULT_LANGUAGE)), keys - set(catalog(DEFAULT_LANGUAGE))


def test_missing_key_falls_back_to_english_then_shows_itself():
    assert text("ko", "home.title") != text("en", "home.title")
    assert text("xx", "home.title") == text("en", "home.title")
    assert text("ko", "no.such_key") == "⟦no.such_key⟧"
    assert text("en", "notices.odd_dim", value=8).endswith("so it is 8.")


SEPARATORS = {"en": ",", "ko": ",", "zh": " "}  # how each language's running text groups digits: 2,048 / 2 048


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_numbers_are_grouped_in_threes_with_the_languages_separator(lang):
    for value in (0, 64, 999, 1000, 2048, 32768, 131072, 1048576):
        groups = number(lang, value).split(SEPARATORS[lang])
        assert "".join(groups) == str(value) and 1 <= len(groups[0]) <= 3 and all(len(g) == 3 for g in groups[1:])


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_the_extrapolation_page_writes_every_long_number_one_way(lang):
    """In the running text of "Train short, test long" (code and {placeholders} left out) a number of four digits or
    more is grouped with the language's separator, as ui.i18n.number writes the ones filled in; only a cited year,
    "(2023)", stays whole (issue 38: "token 2000" beside "1 000 steps")."""
    other = {",": r"\d \d{3}(?!\d)", " ": r"\d,\d{3}(?!\d)"}[SEPARATORS[lang]]
    for key, value in catalog(lang).items():
        if key.startswith("extrapolation."):
            prose = re.sub(r"`[^`]*`|\{[a-z_0-9]*\}", " ", value)
            whole = re.findall(r"(?<![\d.,(（])\d{4,}(?!\d)|[(（]\d{4,}(?![)）\d])", prose)
            assert not whole and not re.search(other, prose), (key, whole)


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("ko", ("ko", True)),
        (["en", "zh"], ("zh", True)),
        ("KO", ("ko", True)),
        ("fr", ("en", False)),
        ("<script>", ("en", False)),
        ("", ("en", False)),
    ],
)
def test_language_from_untrusted_values(raw, expected):
    assert language_from(raw) == expected


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_a_link_opens_the_app_in_its_language(open_page, lang):
    at = open_page("pages/home.py", query={"lang": lang})
    assert not at.exception
    assert at.title[0].value == text(lang, "home.title")
    assert at.query_params["lang"] == lang


def test_unknown_language_in_a_link_opens_english_with_a_notice(open_page):
    at = open_page("pages/home.py", query={"lang": "fr<b>"})
    assert at.title[0].value == text("en", "home.title")
    assert [warning.value for warning in at.warning] == [text("en", "notices.bad_language")]


def test_switching_language_keeps_it_across_pages(open_page):
    at = open_page("pages/home.py")
    at.get("button_group")[0].set_value("zh").run()
    assert at.title[0].value == text("zh", "home.title")
    at.switch_page("pages/sinusoidal.py").run()
    at.switch_page("pages/home.py").run()
    assert at.title[0].value == text("zh", "home.title")
    assert at.query_params["lang"] == "zh"


def test_korean_particles_never_follow_a_filled_in_value():
    """은/는, 이/가, 을/를, 와/과, (으)로 depend on how the word before them ends, which a number or a name filled in
    at run time does not tell: 「{factor}로」 is wrong for 16 (십육으로). The sentence puts a Korean noun between
    (「{last}번 행을」, 「배율({attention})을」) or needs no particle. The copula (「{value}입니다」) is fine."""
    fixed_symbols = {"{r_distance}"}  # always R_{i−j}: its reading ends in a vowel
    particle = re.compile(r"(\{[a-z_0-9:,]*\})[*’'\"]*(?:은|는|이|가|을|를|와|과|으로|로)(?![가-힣])")
    dodged = {
        key: value
        for key, value in catalog("ko").items()
        if any(match.group(1) not in fixed_symbols for match in particle.finditer(value))
    }
    assert not dodged


def test_korean_sentences_are_not_glued_with_a_colon():
    """A finished Korean sentence ("…니다") followed by a colon and more text reads as translated English; Korean
    ends the sentence or joins the clauses with a connective (즉, 예를 들어, 그래서 …)."""
    glued = re.compile(r"니다(?:\([^)]*\))?\s*:\s*\S")  # also "…니다(점선): …"
    assert not {key: value for key, value in catalog("ko").items() if glued.search(value)}


def test_korean_explains_in_one_register():
    """Explanations use 합니다체; a 해요체 ending (…해요, …처럼요, …죠) is a slip. Requests to the reader keep the usual
    interface form …세요; a question to the class is asked as a lecturer asks it in 합니다체 writing, …일까요? (the
    quizzes' …입니까? reads as an exam), and nouns that end in 요 (필요, 중요) are words, not endings."""
    word_ending_in_yo = re.compile(r"[가-힣]*(?:요|죠)(?![가-힣])(\??)")
    nouns = {"필요", "중요", "주요", "개요", "수요"}
    slips = {
        key: words
        for key, value in catalog("ko").items()
        if (
            words := [
                match.group(0)
                for match in word_ending_in_yo.finditer(value)
                if not match.group(0).endswith(("세요", "까요?")) and match.group(0) not in nouns
            ]
        )
    }
    assert not slips
    stiff = {key: value for key, value in catalog("ko").items() if re.search(r"니까\?", value)}
    assert not stiff


# One word per concept: tests/test_terms.py checks every catalog against the term base (locales/terms.toml).


def test_chinese_headings_and_the_rope_offset_read_right():
    strings = catalog("zh")
    assert not [key for key, value in strings.items() if "注意看" in value]
    # "向前看" and "前方" can be read either way; the pages say 回看前面 (earlier) or 查询之后 (later) instead
    assert not [key for key, value in strings.items() if "向前看" in value or "前方" in value]
    assert "回看前面" in strings["rope.offset_label"]


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_the_home_example_is_one_sentence_reordered(lang):
    """Sentence B uses exactly the tokens of sentence A in another order, in every language (the demo needs it)."""
    from posenc.permutation import split_words

    a, b = split_words(text(lang, "home.default_a")), split_words(text(lang, "home.default_b"))
    assert sorted(a) == sorted(b) and a != b


@pytest.mark.parametrize(("lang", "foreign", "script"), [("zh", "[\uac00-\ud7a3\u3130-\u318f]", "Hangul"),
                                                          ("ko", "[\u3040-\u30ff]", "kana")])  # fmt: skip
def test_no_catalog_slips_into_another_script(lang, foreign, script):
    """A Chinese string with a Hangul syllable (下방 for 下方) or a Korean one with kana is a slip of the keyboard."""
    slips = {key: value for key, value in catalog(lang).items() if isinstance(value, str) and re.search(foreign, value)}
    assert not slips, f"{script} in {lang}: {slips}"


def test_chinese_joins_few_clauses_with_a_colon():
    """Issue 38: a colon that joins two clauses ("X：Y" inside a sentence) reads as translated English in Chinese; at
    most 60 in all the zh catalogs (145 before), a label before a value ("颜色：{value}") not counted. The count is
    locales/reviews/zh.md's counting command."""
    import tomllib

    def strings(node):
        if isinstance(node, dict):
            for value in node.values():
                yield from strings(value)
        elif isinstance(node, str):
            yield node

    joined = []
    for path in sorted((ROOT / "locales" / "zh").glob("*.toml")):
        for value in strings(tomllib.loads(path.read_text(encoding="utf-8"))):
            for colon in re.finditer("：", value):
                after = re.split(r"[。！？\n]", value[colon.end() :])[0]
                if value[colon.end() :].strip() and not re.fullmatch(r"\s*\{[^}]*\}\s*(/\s*\{[^}]*\})?\s*", after):
                    joined.append(f"{path.name}: …{value[max(0, colon.start() - 12) : colon.end() + 12]}…")
    assert len(joined) <= 60, "\n".join(joined)
