"""Where code lives: cached functions in charts/, never in a page script; charts/ never reads session state; posenc
holds the math and the models only."""

import ast
from pathlib import Path

import pytest

from ui.i18n import DEFAULT_LANGUAGE, catalog
from ui.menu import HOME, PAGES, next_pages

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = sorted(str(path.relative_to(ROOT)) for path in [ROOT / "navigation.py", *(ROOT / "pages").glob("*.py")])
CHARTS = sorted(str(path.relative_to(ROOT)) for path in (ROOT / "charts").glob("*.py"))


def _functions(tree: ast.AST):
    return [node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)]


def _cache_decorators(source: str):
    """(function, decorator) for every Streamlit cache decorator in ``source``."""
    return [
        (function, decorator)
        for function in _functions(ast.parse(source))
        for decorator in function.decorator_list
        if any(name in ast.get_source_segment(source, decorator) for name in ("cache_data", "cache_resource"))
    ]


@pytest.mark.parametrize("path", SCRIPTS)
def test_no_cache_decorator_in_a_script_streamlit_reruns(path):
    """Streamlit executes a page's source on every rerun, so a cache decorator there is applied again each time and
    reads the function's source to key its cache (a fraction of a millisecond each): define cached functions in
    charts/<page>.py, which is imported, and so decorated, once per process."""
    source = (ROOT / path).read_text()
    cached = [f"{path}:{function.lineno} {function.name}" for function, _ in _cache_decorators(source)]
    assert not cached, f"move these to charts/: {cached}"


def test_the_scan_finds_cached_functions():
    """The tests here would pass on an empty list: they must see the decorators where they do live."""
    source = (ROOT / "charts" / "relative_scores.py").read_text()
    decorators = [ast.get_source_segment(source, d) for _, d in _cache_decorators(source)]
    assert any("cache_data" in d for d in decorators) and any("cache_resource" in d for d in decorators)
    assert "pages/rope.py" in SCRIPTS and "navigation.py" in SCRIPTS


CACHED_CODE = sorted(str(p.relative_to(ROOT)) for d in ("charts", "ui", "figures") for p in (ROOT / d).rglob("*.py"))


@pytest.mark.parametrize("path", CACHED_CODE)
def test_every_cache_says_what_it_shows_while_it_computes(path):
    """Streamlit's default spinner ("Running `xl_tables(...)`.", a developer's words) costs every cache miss a timer
    thread and a message to the browser, even when the value takes a millisecond: in a class where every student
    draws values of their own, nearly every call misses. Each cache passes ``show_spinner``: False, or words of its
    own for the few that take seconds."""
    silent = [
        f"{path}:{decorator.lineno}"
        for _, decorator in _cache_decorators((ROOT / path).read_text())
        if not (isinstance(decorator, ast.Call) and any(k.arg == "show_spinner" for k in decorator.keywords))
    ]
    assert not silent, f"give these show_spinner: {silent}"


@pytest.mark.parametrize("path", CHARTS)
def test_charts_never_read_the_session(path):
    """A cached result is shared by every session: what it depends on (the language too) must be an argument, so
    charts/ never imports ui.language nor touches st.session_state."""
    tree = ast.parse((ROOT / path).read_text())
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):  # `from ui.language import t` and `from ui import language`
            imported |= {node.module, *(f"{node.module}.{alias.name}" for alias in node.names)}
    assert not {name for name in imported if name and name.split(".")[:2] == ["ui", "language"]}
    assert not [node for node in ast.walk(tree) if isinstance(node, ast.Attribute) and node.attr == "session_state"]


SESSION_CODE = sorted(
    str(path.relative_to(ROOT))
    for path in [
        ROOT / "navigation.py",
        *(p for d in ("pages", "charts", "ui", "figures", "posenc") for p in (ROOT / d).rglob("*.py")),
    ]
)


@pytest.mark.parametrize("path", SESSION_CODE)
def test_no_functools_cache_where_sessions_run(path):
    """Every session of a server runs in a thread of one process: functools.cache / lru_cache let several threads
    compute the same lazy entry at once (on a fresh server under a class, ``ast`` work done twice at once crashed a
    page). Lazy per-process values use ui.once.computed_once (one thread computes, the others wait) or Streamlit's
    caches, which lock per entry."""
    tree = ast.parse((ROOT / path).read_text())
    unsafe = [
        f"{path}:{node.lineno}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute | ast.Name)
        and (node.attr if isinstance(node, ast.Attribute) else node.id) in ("cache", "lru_cache", "cached_property")
        and not (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "st")
    ]
    assert not unsafe, f"use ui.once.computed_once: {unsafe}"


def test_the_functools_scan_sees_a_cache():
    tree = ast.parse("import functools\n@functools.cache\ndef f(): pass\n")
    assert any(isinstance(n, ast.Attribute) and n.attr == "cache" for n in ast.walk(tree))
    assert "ui/once.py" in SESSION_CODE and "figures/common.py" in SESSION_CODE


POSENC = sorted(str(path.relative_to(ROOT)) for path in (ROOT / "posenc").rglob("*.py"))
# posenc is the math and the models, what a reader imports in a notebook: no app, no drawing, no threads or sessions.
NOT_IN_POSENC = {"streamlit", "plotly", "threading", "multiprocessing", "concurrent", "asyncio", "queue"}
NOT_IN_POSENC |= {"charts", "figures", "ui", "pages", "navigation", "app", "bench"}


def _imported(tree: ast.AST) -> set[str]:
    """The top-level package of every module a file imports (relative imports count as the file's own)."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("path", POSENC)
def test_posenc_is_math_and_models_only(path):
    """Page arrangements belong to charts/, threads and sessions to the app side (ui/): posenc imports neither,
    nor Streamlit, Plotly or a thread/process pool."""
    found = _imported(ast.parse((ROOT / path).read_text())) & NOT_IN_POSENC
    assert not found, f"{path} imports {sorted(found)}: move that code to charts/ or ui/"


def test_the_posenc_import_scan_sees_imports():
    assert "posenc/toy/train.py" in POSENC and "posenc/fast.py" in POSENC
    assert {"torch", "posenc"} <= _imported(ast.parse((ROOT / "posenc" / "attention.py").read_text()))
    assert _imported(ast.parse("import threading\nfrom streamlit.runtime import x\n")) == {"threading", "streamlit"}


@pytest.mark.parametrize("path", SCRIPTS)
def test_what_to_notice_comes_from_ui_notice(path):
    """One "What to notice" caption for every page (``ui.notice.notice(key, **params)``): a page neither defines its
    own nor writes the lead-in itself."""
    source = (ROOT / path).read_text()
    own = [f"{path}:{f.lineno}" for f in _functions(ast.parse(source)) if f.name == "notice"]
    assert not own and "common.what_to_notice" not in source, own or path


def test_the_menu_lists_every_page_file_once_with_its_words():
    """ui/menu.py is the one list of pages (the sidebar and the home page's links read it): every script in pages/
    is in it once, and every title, section and home-page line it names is in the catalog."""
    files = sorted(str(path.relative_to(ROOT)) for path in (ROOT / "pages").glob("*.py"))
    assert sorted(page.path for page in PAGES) == files
    assert HOME.path == "pages/home.py" and sorted(next_pages()) == sorted(set(PAGES) - {HOME})
    words = catalog(DEFAULT_LANGUAGE)
    keys = {key for page in PAGES for key in (page.section_key, page.title_key)}
    assert keys | {page.blurb_key for page in next_pages()} <= set(words)


def _project_files() -> list[Path]:
    """Every Python file of the project (not caches, virtual environments or hidden folders)."""
    skipped = {"__pycache__", "site-packages", "node_modules", "artifacts"}
    return sorted(
        path
        for path in ROOT.rglob("*.py")
        if not any(part.startswith(".") or part in skipped for part in path.relative_to(ROOT).parts[:-1])
    )


def _private_plotly_imports(source: str) -> list[str]:
    """Imports of Plotly's private modules in ``source``: ``_plotly_utils``, ``plotly._x``, ``plotly.io._x``,
    ``from plotly import _x``. They are no API: they move or change on a Plotly upgrade. Plotly's public API
    (``plotly.graph_objects``, ``plotly.io``, ``plotly.colors``) builds and encodes every figure the app sends."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            modules = [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
        else:
            continue
        for module in modules:
            parts = module.split(".")
            if parts[0] == "_plotly_utils" or (parts[0] == "plotly" and any(p.startswith("_") for p in parts[1:])):
                found.append(f"{node.lineno}: {module}")
    return found


def test_no_private_plotly_import():
    files = _project_files()
    assert ROOT / "figures" / "common.py" in files and ROOT / "tests" / "test_structure.py" in files
    private = [f"{path.relative_to(ROOT)}:{hit}" for path in files for hit in _private_plotly_imports(path.read_text())]
    assert not private, f"use plotly.graph_objects / plotly.io instead: {private}"


def test_the_private_plotly_scan_sees_each_form():
    for source in (
        "from _plotly_utils.utils import to_typed_array_spec",
        "import _plotly_utils.basevalidators",
        "from plotly.io._json import clean_to_json_compatible",
        "from plotly import _subplots",
        "import plotly._subplots as subplots",
    ):
        assert _private_plotly_imports(source), source
    public = "import plotly\nimport plotly.graph_objects as go\nfrom plotly.io import to_json"
    assert not _private_plotly_imports(public)
    assert not _private_plotly_imports("from plotly.graph_objects import Figure\nfrom . import _local")
