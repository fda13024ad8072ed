"""The docs' screenshots show the current app's words: every PNG that README.md or docs/*.md shows is on disk and in
``docs/screenshots/manifest.json`` as ``python -m bench.screenshots`` wrote it, and no catalog it shows has changed
since it was taken. A failure names the PNG and the command that takes it again. Reads files only: no browser."""

from __future__ import annotations

import json
import re

import pytest

from bench.screenshots import CLASS_SHOT, COMMAND, FOLDER, MANIFEST, ROOT, SHOTS, Shot, sha256, shown_catalogs

SHOT_BY_NAME = {shot.name: shot for shot in (*SHOTS, CLASS_SHOT)}
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]  # docs/*.md link them as screenshots/<name>.png
LINKED = sorted({name for doc in DOCS for name in re.findall(r"screenshots/([\w.-]+\.png)", doc.read_text())})


def entries() -> dict:
    return json.loads(MANIFEST.read_text())["screenshots"] if MANIFEST.exists() else {}


def changed_catalogs(entry: dict) -> list[str]:
    """The catalogs of a manifest entry that are missing or differ from what they were when it was taken."""
    return [
        path
        for path, digest in entry["catalogs"].items()
        if not (ROOT / path).exists() or sha256(ROOT / path) != digest
    ]


def test_the_docs_show_screenshots():
    assert LINKED, "README.md and docs/*.md show no docs/screenshots/*.png: has the pattern changed?"


@pytest.mark.parametrize("name", LINKED)
def test_each_shown_screenshot_is_the_commands_and_its_catalogs_are_unchanged(name):
    again = f"run `{COMMAND} {name.removesuffix('.png')}` (or `{COMMAND}` for all)"
    assert name in SHOT_BY_NAME, f"the docs show docs/screenshots/{name}, which {COMMAND} does not take: add it there"
    assert (FOLDER / name).exists(), f"docs/screenshots/{name} is missing: {again}"
    entry = entries().get(name)
    assert entry, f"docs/screenshots/{name} is not in docs/screenshots/manifest.json: {again}"
    assert sha256(FOLDER / name) == entry["png_sha256"], f"docs/screenshots/{name} is not the one taken: {again}"
    changed = changed_catalogs(entry)
    assert not changed, (
        f"docs/screenshots/{name} is stale: {', '.join(changed)} changed after it was taken ({entry['taken']}): {again}"
    )
    missing = sorted(set(shown_catalogs(SHOT_BY_NAME[name])) - set(entry["catalogs"]))
    assert not missing, f"docs/screenshots/{name} now shows {', '.join(missing)}, not recorded when taken: {again}"


def test_every_screenshot_in_the_folder_is_one_the_docs_show():
    unused = sorted(path.name for path in FOLDER.glob("*.png") if path.name not in LINKED)
    assert not unused, f"docs/screenshots/ holds pictures neither README.md nor docs/*.md shows: {', '.join(unused)}"


def test_a_changed_or_missing_catalog_is_found():
    app = "locales/en/app.toml"
    assert changed_catalogs({"catalogs": {app: sha256(ROOT / app)}}) == []
    assert changed_catalogs({"catalogs": {app: "0" * 64}}) == [app]
    assert changed_catalogs({"catalogs": {"locales/en/gone.toml": "0" * 64}}) == ["locales/en/gone.toml"]


def test_the_catalogs_a_page_shows_are_its_topics_the_shell_and_the_term_base_where_read():
    assert shown_catalogs(Shot("extrapolation", "en", "1024x768")) == [
        "locales/en/app.toml",
        "locales/en/extrapolation.toml",
        "locales/en/toy.toml",  # a toy key the page reads
    ]
    assert shown_catalogs(Shot("glossary", "ko", "1024x768")) == [
        "locales/ko/app.toml",
        "locales/ko/glossary.toml",
        "locales/terms.toml",
    ]
    assert "locales/en/classroom.toml" in shown_catalogs(CLASS_SHOT)
