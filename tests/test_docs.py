"""The README and ``docs/`` hold together: every relative link resolves (the file, and its ``#anchor`` by GitHub's
heading slugs), every ``python -m …`` they show names a module that exists, the README stays a five-minute read,
its test command is the one CI runs, every budget of ``bench/budgets.py`` is on the performance page, and the
experiment tables are what the commands beside them print. Reads files (and runs those few ``python -c``)."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import unicodedata
from pathlib import Path
from urllib.parse import unquote

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
README_MAX_LINES = 150

FENCE = re.compile(r"^(```|~~~).*?^\1[ \t]*$", re.M | re.S)
INLINE_CODE = re.compile(r"(`+)(.+?)\1", re.S)
MARKDOWN_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HTML_LINK = re.compile(r"<(?:img|a)\b[^>]*?\b(?:src|href)=\"([^\"]+)\"", re.I)
HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t#]*$", re.M)
WORD_CATEGORIES = {"Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Mc", "Me", "Nd", "Nl", "No", "Pc"}  # kept in an anchor
PYTHON_M = re.compile(r"\bpython3? -m ([A-Za-z_][\w.]*)")


def rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def prose(text: str) -> str:
    """The text without fenced code blocks and inline code: a link there is an example, not a link."""
    return INLINE_CODE.sub("", FENCE.sub("", text))


def links(path: Path) -> list[str]:
    text = prose(path.read_text())
    return MARKDOWN_LINK.findall(text) + HTML_LINK.findall(text)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: its rendered text, lower-cased, with every character that is not a letter, mark,
    number, connector, space or hyphen dropped and each space turned into a hyphen."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link's text stays, its target goes
    text = re.sub(r"<[^>]+>", "", text).replace("`", "")
    text = re.sub(r"(\*\*|__|\*|_)(\S(?:.*?\S)?)\1", r"\2", text)  # emphasis markers
    kept = (c for c in text.lower() if c in " -" or unicodedata.category(c) in WORD_CATEGORIES)
    return "".join(kept).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every heading's anchor in ``path``, a repeated one numbered as GitHub numbers it (-1, -2, …)."""
    seen: dict[str, int] = {}
    found = set()
    for _, heading in HEADING.findall(FENCE.sub("", path.read_text())):
        base = slug(heading)
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def broken(path: Path, target: str) -> str | None:
    """Why ``target``, linked from ``path``, does not resolve; None when it does (or is not a relative link)."""
    if re.match(r"[a-z][a-z0-9+.-]*:", target, re.I) or target.startswith("//"):
        return None  # http:, https:, mailto: … are not this repository's to check
    file_part, _, anchor = target.partition("#")
    linked = (path.parent / unquote(file_part)).resolve() if file_part else path
    if not linked.is_relative_to(ROOT):
        return f"{target}: outside the repository"
    if not linked.exists():
        return f"{target}: no such file {linked.relative_to(ROOT).as_posix()}"
    if anchor and linked.suffix == ".md" and unquote(anchor) not in anchors(linked):
        return f"{target}: {rel(linked)} has no heading with the anchor #{anchor}"
    return None


def module_exists(name: str) -> bool:
    """A module of this repository (a ``.py`` file or a package with ``__main__``/``__init__``), or an installed one."""
    path = ROOT.joinpath(*name.split("."))
    if path.with_suffix(".py").is_file() or (path / "__main__.py").is_file() or (path / "__init__.py").is_file():
        return True
    if name.split(".")[0] in {"bench", "posenc", "tests", "ui", "charts", "figures", "classroom"}:
        return False  # ours, and not on disk: find_spec would import the package to look
    return importlib.util.find_spec(name) is not None


@pytest.mark.parametrize("path", DOCS, ids=rel)
def test_every_relative_link_resolves(path):
    problems = [why for target in links(path) if (why := broken(path, target))]
    assert not problems, f"{rel(path)}: " + "; ".join(problems)


@pytest.mark.parametrize("path", DOCS, ids=rel)
def test_every_python_m_command_names_a_module_that_exists(path):
    named = sorted(
        {name.rstrip(".") for name in PYTHON_M.findall(path.read_text())}
    )  # "… python -m bench." ends a sentence
    missing = [name for name in named if not module_exists(name)]
    assert not missing, f"{rel(path)} shows python -m with modules that do not exist: {missing}"


def test_the_readme_is_a_five_minute_read_that_links_every_docs_page():
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= README_MAX_LINES, "README.md is longer than a newcomer reads: move it to docs/"
    linked = {target.partition("#")[0] for target in links(ROOT / "README.md")}
    pages = {rel(path) for path in DOCS[1:]}
    assert pages <= linked, f"README.md does not link {sorted(pages - linked)}"


def test_the_readmes_test_command_is_the_one_ci_runs():
    readme = (ROOT / "README.md").read_text()
    section = readme.split("\n## Test it\n", 1)[1]
    command = re.search(r"```bash\n(.+?)\n```", section, re.S).group(1).strip()
    ci = [line for line in (ROOT / ".ci" / "run").read_text().splitlines() if line and not line.startswith("#")]
    assert ci[-1] == command


# The checks themselves, on cases whose answers are known.


def test_slugs_follow_githubs_rules():
    assert slug("Class mode's store: SQLite or Redis") == "class-modes-store-sqlite-or-redis"
    assert slug("The class's first minute, and what one browser may ask") == (
        "the-classs-first-minute-and-what-one-browser-may-ask"
    )
    assert slug("`static/twins.js` and **parity**") == "statictwinsjs-and-parity"
    assert slug("RoPE — 회전 위치 임베딩") == "rope--회전-위치-임베딩"
    assert slug("A [link](other.md) in a heading") == "a-link-in-a-heading"


def test_repeated_headings_are_numbered(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("# Notes\n\n## Notes\n\n```md\n# Not a heading\n```\n\n### Notes\n")
    assert anchors(page) == {"notes", "notes-1", "notes-2"}


def test_links_in_code_are_examples_and_html_images_count():
    text = 'See [a](a.md) and `[b](b.md)`.\n\n```\n[c](c.md)\n```\n<img src="d.png" width="49%">\n![e](e.png)'
    assert MARKDOWN_LINK.findall(prose(text)) + HTML_LINK.findall(prose(text)) == ["a.md", "e.png", "d.png"]
    assert broken(ROOT / "README.md", "https://example.org/x") is None
    assert "no such file" in broken(ROOT / "README.md", "docs/no-such-page.md")
    assert "no heading" in broken(ROOT / "README.md", "README.md#no-such-heading")
    assert broken(ROOT / "README.md", "#run-it") is None


def test_the_module_check_finds_ours_and_installed_ones_and_refuses_made_up_ones():
    assert module_exists("bench") and module_exists("bench.load") and module_exists("posenc.toy.train")
    assert module_exists("tests.browser.layout_check") and module_exists("pytest")
    assert not module_exists("bench.no_such_benchmark") and not module_exists("no_such_module_anywhere")


def test_every_budget_is_in_the_performance_page():
    budgets = re.findall(r"^([A-Z][A-Z0-9_]+) = [\d_.]+", (ROOT / "bench" / "budgets.py").read_text(), re.M)
    page = (ROOT / "docs" / "performance.md").read_text()
    assert budgets, "bench/budgets.py defines no budget: has its form changed?"
    missing = [name for name in budgets if f"`{name}`" not in page]
    assert not missing, f"docs/performance.md does not give these budgets with their latest figures: {missing}"


def table_rows(text: str) -> list[list[str]]:
    """Every body row of every table in ``text``, as its cells (the header and the --- line left out)."""
    rows, previous = [], ""
    for line in FENCE.sub("", text).splitlines():
        if line.startswith("|") and not re.match(r"\|\s*-", line) and previous.startswith("|"):
            rows.append([cell.strip() for cell in line.strip().strip("|").split(" | ")])
        previous = line if line.startswith("|") else ""
    return rows


NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")


def test_every_experiment_figure_is_printed_by_the_commands_the_page_shows():
    """docs/experiments.md's tables, row by row, are what its ``python -c`` commands print from assets/toy/, in order:
    each printed line is a row's name followed by its figures."""
    text = (ROOT / "docs" / "experiments.md").read_text()
    commands = [line for block in re.findall(r"```bash\n(.*?)```", text, re.S) for line in block.splitlines()]
    printed = []
    for command in (line for line in commands if line.startswith("python -c ") and "['recipe']" not in line):
        done = subprocess.run(command, shell=True, cwd=ROOT, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, f"{command}\n{done.stderr}"
        printed += [NUMBER.findall(line.split(" ", 1)[1]) for line in done.stdout.splitlines()]
    shown = [NUMBER.findall(" ".join(row[1:])) for row in table_rows(text)]
    assert printed and printed == shown


@pytest.mark.parametrize("path", DOCS, ids=rel)
def test_every_table_row_has_its_headers_number_of_cells(path):
    """GitHub drops the cells of a row beyond its header's and leaves missing ones empty: a row with another count is
    a table that says something else than was written."""
    wrong, columns = [], None
    text = FENCE.sub(lambda block: "\n" * block.group(0).count("\n"), path.read_text())  # line numbers kept
    for number, line in enumerate(text.splitlines(), 1):
        if not line.startswith("|"):
            columns = None
            continue
        cells = len(re.split(r"(?<!\\)\|", line.strip().strip("|")))
        columns = columns or cells
        if cells != columns:
            wrong.append(f"line {number}: {cells} cells, the header has {columns}")
    assert not wrong, f"{rel(path)}: " + "; ".join(wrong)


def test_the_readmes_page_table_lists_every_page_of_the_menu_with_its_title():
    """The README's pages, in the sidebar's order: each with its sidebar section, its English title and its script."""
    from ui.i18n import catalog
    from ui.menu import PAGES

    words = catalog("en")
    rows = [row for row in table_rows((ROOT / "README.md").read_text()) if row[-1].startswith("`pages/")]
    listed = [(section, title, script.strip("`")) for section, title, _, script in rows]
    wanted = [(words[page.section_key], words[page.title_key], page.path) for page in PAGES]
    assert listed == wanted, "README.md's table of pages is not ui/menu.py's list with locales/en/app.toml's titles"
