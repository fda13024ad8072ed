"""Render every page in every language from the Docker image's files, and report what a visitor would read.

Not a test module: ``tests/test_docker_context.py`` copies this script next to (not into) the materialised image
and runs it in a fresh Python process whose working folder is the image's app folder (the Dockerfile's WORKDIR)
and whose environment cannot reach the repository. So every module of the app, every catalog and every asset comes
from the image's files, and a file the image lacks shows up here as it would in a container.

    python image_pages.py REPORT.json REPOSITORY_ROOT

For each language it opens ``navigation.py`` with ``?lang=<lang>`` in AppTest, then switches to each page that
``ui/menu.py`` lists. Of each run it records the exceptions shown, every place where the text Streamlit sent
holds a ``⟦`` (a catalog key that resolved to nothing: see ``ui/i18n.py``) and, on the first run, the sidebar
menu's section and page titles. Every string Streamlit sent is searched, in all fields of all messages of the run:
titles, markdown, captions, widget labels and options, metrics, expanders, dataframes (Arrow bytes), the Plotly
JSON specs, the page config and the sidebar navigation. It writes the report as JSON and exits 0 even when pages
fail: the test reads the report and names each failure. Exit 2 means the process imported the repository's own copy
of the app.
"""

from __future__ import annotations

import ast
import json
import os
import sys
import traceback
from pathlib import Path

MARKER = "⟦"
MARKERS = (MARKER, "\\u27e6", "\\u27E6")  # and as JSON may escape it
LANGUAGES = ("en", "ko", "zh")
TIMEOUT = 180  # seconds an AppTest run may take on a slow, shared machine (a hang guard, not a budget)


def page_paths(app: Path) -> list[str]:
    """Every page file the app's menu lists (string constants ``pages/….py`` in ``app/ui/menu.py``, the list
    ``navigation.py`` builds its navigation from), in order of appearance."""
    tree = ast.parse((app / "ui" / "menu.py").read_text(encoding="utf-8"))
    found = [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and node.value.startswith("pages/")
        and node.value.endswith(".py")
    ]
    return list(dict.fromkeys(found))


def strings_of(message, path: str):
    """(field path, value) for every string and bytes value anywhere in the protobuf ``message``."""
    for field, value in message.ListFields():
        where = f"{path}.{field.name}"
        if field.type == field.TYPE_MESSAGE:
            if field.message_type.GetOptions().map_entry:
                for key, item in value.items():
                    yield f"{where}[{key}]", str(key)
                    if hasattr(item, "ListFields"):
                        yield from strings_of(item, f"{where}[{key}]")
                    else:
                        yield f"{where}[{key}]", item
            elif field.is_repeated:
                for index, item in enumerate(value):
                    yield from strings_of(item, f"{where}[{index}]")
            else:
                yield from strings_of(value, where)
        elif field.is_repeated:
            for item in value:
                yield where, item
        else:
            yield where, value


def marker_hits(messages) -> list[dict]:
    """Every string or bytes value of ``messages`` that holds a ``⟦``: where, and the text around it."""
    hits = []
    for message in messages:
        for where, value in strings_of(message, ""):
            where = where.lstrip(".")  # e.g. delta.new_element.markdown.body, navigation.sections
            if isinstance(value, bytes):
                if MARKER.encode() in value:
                    hits.append({"where": where, "text": "(binary data holding ⟦)"})
                continue
            if not isinstance(value, str):
                continue
            at = min((value.find(marker) for marker in MARKERS if marker in value), default=-1)
            if at >= 0:
                hits.append({"where": where, "text": value[max(0, at - 40) : at + 80]})
    return hits


def navigation_menu(messages) -> dict:
    """The sections and page titles of the run's last navigation message: on a language's first run, the sidebar
    menu ``navigation.py`` built. (AppTest runs a switched-to page straight from ``pages/``, announced with
    Streamlit's own listing of that folder, so only the first run shows the app's menu.)"""
    menus = [message.navigation for message in messages if message.WhichOneof("type") == "navigation"]
    if not menus:
        return {}
    return {"sections": list(menus[-1].sections), "pages": [page.page_name for page in menus[-1].app_pages]}


def main(report_path: str, repository: str) -> int:
    app = Path.cwd().resolve()
    sys.path.insert(0, str(app))  # as `streamlit run app.py` puts the app's folder first on sys.path

    from streamlit.testing.v1 import AppTest, local_script_runner

    import ui.i18n

    repository_root = Path(repository).resolve()
    i18n_file = Path(ui.i18n.__file__).resolve()
    if not i18n_file.is_relative_to(app):
        print(f"ui.i18n was imported from {i18n_file}, not from the image's folder {app}", file=sys.stderr)
        return 2

    # AppTest keeps only the element tree; the navigation and page config are other messages of the run. Keep a
    # copy of every message each run sent (the hook must fire: a run without messages is reported as a failure).
    sent: list = []
    parse = local_script_runner.parse_tree_from_messages

    def keep_messages(messages):
        sent[:] = list(messages)
        return parse(messages)

    local_script_runner.parse_tree_from_messages = keep_messages

    results = []
    for lang in LANGUAGES:
        at = None
        for page in ["(first run)", *page_paths(app)]:
            result = {"lang": lang, "page": page, "exceptions": [], "markers": [], "navigation": {}, "error": None}
            sent.clear()
            try:
                if at is None:
                    at = AppTest.from_file(str(app / "navigation.py"), default_timeout=TIMEOUT)
                    at.query_params["lang"] = lang
                    at.run()
                else:
                    at.switch_page(page).run()
                result["exceptions"] = [f"{exception.message}\n{exception.stack}" for exception in at.exception]
                result["markers"] = marker_hits(sent)
                result["navigation"] = navigation_menu(sent)
                result["title"] = at.title[0].value if at.title else None
                result["messages"] = len(sent)
            except Exception:
                result["error"] = traceback.format_exc()
            results.append(result)
            if result["error"] and page == "(first run)":
                break  # the language's other pages cannot be reached without a first run

    foreign = sorted(
        name
        for name, module in list(sys.modules.items())
        if (file := getattr(module, "__file__", None)) and Path(file).resolve().is_relative_to(repository_root)
    )
    report = {"app": str(app), "i18n_file": str(i18n_file), "modules_from_repository": foreign, "results": results}
    Path(report_path).write_text(json.dumps(report, ensure_ascii=False, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    sys.exit(main(sys.argv[1], sys.argv[2]))
