"""ui.once.computed_once: each entry computed once, by one thread, however many sessions ask at the same moment;
and the lazy work the pages reach (show-code sources, catalogs) built on it."""

import threading
import time

import pytest
from conftest import written_source

import posenc
from posenc.absolute import LearnedPositionalEmbedding
from posenc.relative import ShawRelativeEmbeddings, T5RelativeBias
from ui import code
from ui.i18n import LANGUAGES, catalog
from ui.once import clear_computed, computed_once


def _together(threads: int, work) -> list[BaseException]:
    """Run ``work`` in ``threads`` threads released at the same instant; the exceptions they raised."""
    start, errors = threading.Barrier(threads), []

    def run():
        start.wait()
        try:
            work()
        except BaseException as err:  # collected for the assertion
            errors.append(err)

    workers = [threading.Thread(target=run) for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return errors


def test_each_entry_is_computed_once_by_one_thread_at_a_time():
    calls, inside, most_inside = [], [0], [0]
    guard = threading.Lock()

    @computed_once
    def slow_square(n):
        with guard:
            inside[0] += 1
            most_inside[0] = max(most_inside[0], inside[0])
        time.sleep(0.01)  # long enough for every other thread to arrive while this one computes
        calls.append(n)
        with guard:
            inside[0] -= 1
        return n * n

    results = []  # one tuple per thread (list.append is atomic; the threads' calls interleave)
    assert not _together(16, lambda: results.append(tuple(slow_square(n) for n in (3, 4, 3, 4))))
    assert sorted(calls) == [3, 4]  # functools.cache would let several threads compute the same entry
    assert most_inside[0] == 1
    assert results == [(9, 16, 9, 16)] * 16


def test_an_exception_is_not_cached():
    attempts = []

    @computed_once
    def flaky(n):
        attempts.append(n)
        if len(attempts) == 1:
            raise ValueError("first call fails")
        return n

    with pytest.raises(ValueError):
        flaky(1)
    assert flaky(1) == 1 and attempts == [1, 1]


class _Finalised:
    """A reference cycle with a finaliser: the collector frees it, and its ``__del__`` lets another thread run in
    the middle of whatever allocation triggered the collection (as torch tensors and Plotly objects do on a busy
    server)."""

    def __init__(self):
        self.cycle = self

    def __del__(self):
        time.sleep(0)


def test_show_code_sources_read_by_many_threads_while_finalisers_run():
    """The crash of a fresh server under a class: inspect.getsource of a class parses its module with ``ast``, whose
    object builder CPython 3.11 keeps in one shared state; a finaliser that switches threads mid-parse lets a second
    parse corrupt it (``SystemError: AST constructor recursion depth mismatch``; with functools.cache in place of
    computed_once this test fails within a second). Eight threads re-reading class sources for two seconds while
    finalisers run get exact sources and no error."""
    classes = (LearnedPositionalEmbedding, ShawRelativeEmbeddings, T5RelativeBias)
    deadline = time.monotonic() + 2.0

    def read_again_and_again():
        while time.monotonic() < deadline:
            for cls in classes:
                [_Finalised() for _ in range(20)]
                code.source_of.cache_clear()
                code.source_of(cls)

    assert not _together(8, read_again_and_again)
    for cls in classes:
        written = written_source(cls.__module__, cls.__qualname__)  # found with ast, not inspect
        assert code.source_of(cls).rstrip("\n") == f"# {cls.__module__}.{cls.__qualname__}\n{written}".rstrip("\n")


def test_read_sources_covers_every_function_and_class_the_pages_show():
    code.source_of.cache_clear()
    count = code.read_sources(posenc)
    shown = {name for name in _names_the_pages_show()}
    read = {f"{f.__module__}.{f.__qualname__}" for f in code._defined_in(posenc)}
    assert count == len(read) > 100
    assert shown and shown <= read, shown - read


def _names_the_pages_show() -> set[str]:
    """module.qualname of everything a page passes to show_code, found by running each page's show_code calls'
    arguments through the page's own imports."""
    import ast
    from pathlib import Path

    names = set()
    for path in (Path(__file__).resolve().parents[1] / "pages").glob("*.py"):
        tree = ast.parse(path.read_text())
        imported = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("posenc"):
                for alias in node.names:
                    imported[alias.asname or alias.name] = (node.module, alias.name)
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "show_code":
                for arg in node.args:
                    dotted = ast.unparse(arg).split(".")
                    module, name = imported[dotted[0]]
                    obj = getattr(__import__(module, fromlist=[name]), name)
                    for attribute in dotted[1:]:
                        obj = getattr(obj, attribute)
                    names.add(f"{obj.__module__}.{obj.__qualname__}")
    return names


def test_catalogs_loaded_by_many_threads_at_once_are_complete():
    catalog.cache_clear()
    lengths = []
    assert not _together(8, lambda: lengths.append(tuple(len(catalog(lang)) for lang in LANGUAGES)))
    assert len(set(lengths)) == 1 and min(lengths[0]) > 100


def test_a_bounded_cache_keeps_the_newest_entries_and_keys_keywords():
    calls = []

    @computed_once(maxsize=2)
    def power(n, exponent=2):
        calls.append((n, exponent))
        return n**exponent

    assert [power(2), power(3), power(2)] == [4, 9, 4]
    assert calls == [(2, 2), (3, 2)]  # the second 2² was looked up
    assert power(n=2, exponent=3) == 8 and power(n=2, exponent=3) == 8  # keywords are part of the key
    assert calls[-1] == (2, 3) and len(calls) == 3
    assert power(3) == 9 and len(calls) == 3  # two entries kept: 3² and 2³ (2², the oldest, was dropped)
    assert power(2) == 4 and calls[-1] == (2, 2)  # computed again


def test_clearing_a_modules_memos_leaves_the_others():
    calls = []

    def made_in(module: str):
        def square(n):
            calls.append((module, n))
            return n * n

        square.__module__ = module
        return computed_once(square)

    page, other = made_in("charts.some_page"), made_in("ui.something")
    assert [page(3), other(3), page(3), other(3)] == [9, 9, 9, 9] and len(calls) == 2
    clear_computed("charts.")
    assert [page(3), other(3)] == [9, 9]
    assert calls[2:] == [("charts.some_page", 3)]  # only the page's memo was emptied
