"""The Docker image holds every file the app reads: its pages render, in every language, from the image's files.

No Docker daemon runs here or in CI. ``docker_context`` rebuilds the image's files as ``docker build .`` would
(``.dockerignore`` applied to the repository on disk, then the Dockerfile's COPY lines); the tests below first check
that rebuild against Docker's documented rules, then run the app from it in fresh processes that cannot import the
repository's own copy: every page in en, ko and zh through AppTest (``image_pages.py``), and the real entry point
``streamlit run app.py`` until its script health check answers.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
import time
import urllib.error
import urllib.request
from collections import Counter
from pathlib import Path

import pytest
from docker_context import (
    Copy,
    DockerIgnore,
    IgnorePattern,
    MaterialisedImage,
    context_files,
    dockerfile_copies,
    final_stage,
    go_clean,
    materialise_image,
    workdir,
)
from image_pages import LANGUAGES, page_paths

from bench.server import free_port, stop_process
from ui.i18n import catalog

ROOT = Path(__file__).resolve().parents[1]
STARTUP_SECONDS = 300  # a hang guard for a cold start on a loaded 2-core machine, not a performance budget


# --- .dockerignore, on the examples of Docker's documentation -------------------------------------------------------

# https://docs.docker.com/build/concepts/context/#dockerignore-files, the first example, line by line.
DOCS_EXAMPLE = """\
# comment
*/temp*
*/*/temp*
temp?
"""


@pytest.mark.parametrize(
    "path, excluded",
    [
        ("somedir/temporary.txt", True),  # */temp*: a file in an immediate subfolder of the root
        ("somedir/temp", True),  # */temp*: ... or a folder
        ("somedir/temp/inside.txt", True),  # ... and everything under that folder
        ("somedir/subdir/temporary.txt", True),  # */*/temp*: two levels down
        ("tempa", True),  # temp?: in the root, one more character
        ("tempb", True),
        ("temp", False),  # temp? needs exactly one character after "temp"
        ("tempab", False),
        ("temporary.txt", False),  # */temp* does not match in the root itself
        ("a/b/c/temporary.txt", False),  # nor three levels down
        ("somedir/tempa/x", True),  # somedir/tempa matches */temp*, so its content goes too
        ("dir/tempa", True),  # ... as the same line matches it; temp? alone would not (root only)
        ("# comment", False),  # the comment is not a pattern
    ],
)
def test_dockerignore_documented_example(path, excluded):
    assert DockerIgnore.parse(DOCS_EXAMPLE).excludes(path) is excluded


@pytest.mark.parametrize(
    "lines, path, excluded",
    [
        # "**/*.go excludes all files that end with .go found anywhere in the build context", the root included
        (["**/*.go"], "main.go", True),
        (["**/*.go"], "a/b/c/main.go", True),
        (["**/*.go"], "a/go", False),
        (["**/*.go"], "main.gone", False),
        # "/foo/bar and foo/bar both exclude a file or directory named bar in the foo subdirectory"
        (["/foo/bar"], "foo/bar", True),
        (["foo/bar"], "foo/bar", True),
        (["/foo/bar"], "foo/bar/baz.txt", True),
        (["/foo/bar"], "x/foo/bar", False),
        # patterns are cleaned with Go's filepath.Clean first
        (["./foo/../bar/"], "bar/file", True),
        (["bar//baz/."], "bar/baz", True),
        # a bare name matches only at the root; **/ matches at any depth
        (["__pycache__"], "__pycache__/m.pyc", True),
        (["__pycache__"], "pkg/__pycache__/m.pyc", False),
        (["**/__pycache__"], "pkg/sub/__pycache__/m.pyc", True),
        (["**/__pycache__"], "__pycache__/m.pyc", True),
        (["**/__pycache__"], "pkg/not__pycache__/m.pyc", False),
        (["*.pyc"], "pkg/m.pyc", False),
        (["**/*.py[co]"], "pkg/m.pyc", True),
        (["**/*.py[co]"], "pkg/m.py", False),
        # * and ? never cross a "/"; [] classes, [^] negation and \ escapes follow filepath.Match
        (["a*b"], "a/b", False),
        (["a?b"], "a/b", False),
        (["a*"], "ab/c", True),  # the folder "ab" matches, so its files go
        (["ab[b-d]"], "abc", True),
        (["ab[^b-d]"], "abc", False),
        (["ab[^e-g]"], "abc", True),
        (["a\\*b"], "a*b", True),
        (["a\\*b"], "axb", False),
        (["abc.def"], "abcxdef", False),  # "." is literal
        (["a(b)c+{d}$"], "a(b)c+{d}$", True),
        # ** at the end, in the middle, and alone
        (["dir/**"], "dir/a/b", True),
        (["dir/**"], "dir", False),
        (["a/**/b"], "a/b", True),
        (["a/**/b"], "a/x/y/b", True),
        (["**"], "anything/at/all", True),
        # "!" re-includes; the last matching line decides; a folder's files can be re-included one by one
        (["docs", "!docs/README.md"], "docs/README.md", False),
        (["docs", "!docs/README.md"], "docs/other.md", True),
        (["docs/*", "!docs/README.md"], "docs/README.md", False),
        (["!keep.go", "*.go"], "keep.go", True),
        (["*.go", "!keep.go"], "keep.go", False),
        (["**", "!util/web", "util/web/foo"], "util/web/foo", True),
        (["**", "!util/web"], "util/web/foo", False),
        (["  spaced  "], "spaced", True),
    ],
)
def test_dockerignore_patterns(lines, path, excluded):
    assert DockerIgnore.parse("\n".join(lines)).excludes(path) is excluded


@pytest.mark.parametrize(
    "text, readme, readme_secret, notes",
    [
        # "all markdown files right under the context directory except README.md are excluded"
        ("*.md\n!README.md\n", False, True, True),
        # "no markdown files are included in the context except README files other than README-secret.md"
        ("*.md\n!README*.md\nREADME-secret.md\n", False, True, True),
        # "all of the README files are included. The middle line has no effect because !README*.md matches
        # README-secret.md and comes last."
        ("*.md\nREADME-secret.md\n!README*.md\n", False, False, True),
    ],
)
def test_dockerignore_documented_exceptions(text, readme, readme_secret, notes):
    ignore = DockerIgnore.parse(text)
    assert ignore.excludes("README.md") is readme
    assert ignore.excludes("README-secret.md") is readme_secret
    assert ignore.excludes("NOTES.md") is notes
    assert ignore.excludes("docs/NOTES.md") is False  # *.md is relative to the root: it does not reach into docs/


def test_dockerignore_file_syntax():
    ignore = DockerIgnore.parse("\ufeff# a comment\n\n   \n  # indented: a pattern, not a comment\n!/kept\n/gone/\n")
    assert [(pattern.text, pattern.reinclude) for pattern in ignore.patterns] == [
        ("# indented: a pattern, not a comment", False),
        ("kept", True),
        ("gone", False),
    ]
    assert ignore.excludes("gone/file") and not ignore.excludes("kept")
    assert not DockerIgnore(["*"]).excludes(".")  # the context root itself is never excluded
    for bad in ("!", "[", "a[", "[^bc", "trailing\\"):
        with pytest.raises(ValueError):
            IgnorePattern.compile(bad)


@pytest.mark.parametrize(
    "path, cleaned",
    [("", "."), ("a//b/./c/", "a/b/c"), ("a/../../b", "../b"), ("/../a", "/a"), ("//x", "/x"), ("./", ".")],
)
def test_go_clean(path, cleaned):
    assert go_clean(path) == cleaned


# --- the Dockerfile's COPY lines -------------------------------------------------------------------------------------


def test_copy_lines_resolve_against_the_workdir_of_the_final_stage():
    dockerfile = textwrap.dedent(
        """\
        FROM python:3.11 AS build
        COPY ignored.txt /nowhere/
        FROM python:3.11-slim
        # a comment
        WORKDIR /srv
        COPY requirements.txt .
        WORKDIR app
        COPY --chown=lab:lab \\
             pkg ./pkg
        COPY ["a file.txt", "b.txt", "data/"]
        COPY single.txt renamed.txt
        CMD ["run"]
        """
    )
    assert workdir(dockerfile) == "/srv/app"
    assert [keyword for keyword, _ in final_stage(dockerfile)][:2] == ["FROM", "WORKDIR"]
    assert dockerfile_copies(dockerfile) == [
        Copy(("requirements.txt",), "/srv", (), True),
        Copy(("pkg",), "/srv/app/pkg", ("--chown=lab:lab",), False),
        Copy(("a file.txt", "b.txt"), "/srv/app/data", (), True),
        Copy(("single.txt",), "/srv/app/renamed.txt", (), False),
    ]
    for unsupported in ("COPY --from=build /x .", "COPY *.txt .", "ADD a.tar.gz ."):
        with pytest.raises(NotImplementedError):
            dockerfile_copies(f"FROM scratch\n{unsupported}\n")


def _write(root: Path, files: dict[str, str]) -> None:
    for relative, content in files.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(content)


def test_materialise_applies_dockerignore_then_each_copy(tmp_path):
    repo = tmp_path / "repo"
    _write(
        repo,
        {
            ".dockerignore": "tests\n**/__pycache__\n*.log\n!keep.log\n",
            "Dockerfile": "FROM x\nWORKDIR /app\nCOPY req.txt .\nCOPY . .\nCOPY pkg /opt/pkg2\nCOPY req.txt /etc/\n",
            "req.txt": "r",
            "app.py": "a",
            "pkg/__init__.py": "",
            "pkg/__pycache__/m.pyc": "",
            "pkg/data/catalog.toml": "c",
            "tests/test_x.py": "t",
            "run.log": "l",
            "keep.log": "k",
        },
    )
    kept = [".dockerignore", "Dockerfile", "app.py", "keep.log", "pkg/__init__.py", "pkg/data/catalog.toml", "req.txt"]
    assert context_files(repo) == kept
    image = materialise_image(repo, tmp_path / "out")
    assert image.app == tmp_path / "out" / "image" / "app"
    assert image.files() == kept  # COPY . . brings the whole context
    assert (image.filesystem / "opt/pkg2/data/catalog.toml").read_text() == "c"  # a folder's contents
    assert (image.filesystem / "etc/req.txt").read_text() == "r"  # a file into a folder

    (repo / ".dockerignore").write_text("req.txt\n")  # the first COPY's source is no longer in the context
    with pytest.raises(FileNotFoundError, match=r"COPY req\.txt: not in the build context"):
        materialise_image(repo, tmp_path / "again")


# --- the real image ---------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def image(tmp_path_factory) -> MaterialisedImage:
    target = tmp_path_factory.mktemp("docker-image")
    assert not target.resolve().is_relative_to(ROOT), "the image must be rebuilt outside the repository"
    return materialise_image(ROOT, target)


def image_environment() -> dict[str, str]:
    """This machine's environment, less anything that would let Python find the repository's modules."""
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP")}
    env.update(PYTHONDONTWRITEBYTECODE="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")  # as in the image
    env.update(MALLOC_ARENA_MAX="2", MALLOC_MMAP_THRESHOLD_="1048576")
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])  # `python` is this one
    return env


@pytest.mark.browser  # every page in three languages, in a separate process
def test_every_page_reads_in_every_language_from_the_image_files(image):
    """Each page that navigation.py shows (ui/menu.py lists), in en, ko and zh, rendered from the image's files
    alone: no exception and no ⟦key⟧ placeholder anywhere in what Streamlit sends, and the sidebar menu in the page's
    language."""
    assert (image.app / "navigation.py").is_file(), f"the image has no navigation.py: {image.files()}"
    pages = page_paths(image.app)
    assert len(pages) >= 8 and "pages/home.py" in pages, pages  # ui/menu.py was read
    script = image.filesystem.parent / "image_pages.py"  # next to the image, not in it
    shutil.copy(Path(__file__).with_name("image_pages.py"), script)
    report_path = image.filesystem.parent / "image_pages.json"
    finished = subprocess.run(
        [sys.executable, str(script), str(report_path), str(ROOT)],
        cwd=image.app,
        env=image_environment(),
        capture_output=True,
        text=True,
        timeout=600,  # a hang guard: 27 AppTest runs take seconds to a minute
    )
    assert finished.returncode == 0, f"image_pages.py failed (exit {finished.returncode}):\n{finished.stderr[-4000:]}"
    report = json.loads(report_path.read_text(encoding="utf-8"))
    assert Path(report["i18n_file"]).is_relative_to(image.app.resolve()), report["i18n_file"]
    assert report["modules_from_repository"] == [], "the subprocess imported the repository's own files"

    runs = {(result["lang"], result["page"]): result for result in report["results"]}
    failures = []
    for lang in LANGUAGES:
        for page in ["(first run)", *pages]:
            result = runs.get((lang, page))
            if result is None:
                failures.append(f"{lang} {page}: not run (an earlier run of this language failed)")
                continue
            if result["error"]:
                failures.append(f"{lang} {page}: the run raised\n{result['error']}")
                continue
            if not result["messages"] or not result["title"]:
                failures.append(f"{lang} {page}: drew nothing ({result['messages']} messages, no title)")
            for exception in result["exceptions"]:
                failures.append(f"{lang} {page}: exception shown on the page: {exception[:800]}")
            if result["markers"]:
                places = Counter(re.sub(r"\[\w+\]", "", hit["where"]) for hit in result["markers"])
                where = ", ".join(f"{place} ×{count}" for place, count in places.items())
                shown = "; ".join(repr(hit["text"]) for hit in result["markers"][:3])
                failures.append(
                    f"{lang} {page}: {len(result['markers'])} texts hold ⟦key⟧ placeholders ({where}), e.g. {shown}"
                )
        first = runs.get((lang, "(first run)"))
        if first and not first["error"]:
            menu = first["navigation"]
            strings = set(catalog(lang).values())
            if len(menu.get("pages", [])) != len(pages):
                failures.append(f"{lang}: the sidebar menu lists {menu.get('pages')}, expected {len(pages)} pages")
            foreign = [title for title in [*menu.get("sections", []), *menu.get("pages", [])] if title not in strings]
            if foreign:
                failures.append(f"{lang}: sidebar menu titles that are not in locales/{lang}/: {foreign}")
    assert not failures, "Rendered from the image's files:\n" + "\n".join(failures)


def _script_health(process: subprocess.Popen, url: str, log: Path) -> tuple[int, str]:
    """The first answer of ``url`` (status, body), waiting while the server warms up (connections refused)."""
    deadline = time.monotonic() + STARTUP_SECONDS
    while True:
        if process.poll() is not None:
            pytest.fail(f"streamlit exited with {process.returncode} before answering:\n{log.read_text()[-4000:]}")
        try:
            with urllib.request.urlopen(url, timeout=STARTUP_SECONDS) as response:
                return response.status, response.read().decode()
        except urllib.error.HTTPError as err:
            return err.code, err.read().decode()
        except OSError:
            pass
        if time.monotonic() > deadline:
            pytest.fail(f"no answer from {url} within {STARTUP_SECONDS} s:\n{log.read_text()[-4000:]}")
        time.sleep(0.5)


@pytest.mark.browser  # a real server from the image's files
def test_the_image_entry_point_starts_and_passes_its_health_checks(image):
    """``streamlit run app.py`` from the image's folder warms up, then answers the script health check, and the
    Dockerfile's own HEALTHCHECK command (pointed at this port) exits 0."""
    port = free_port()
    command = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port)]
    command += ["--server.address", "127.0.0.1", "--server.headless", "true"]
    healthcheck = next(
        arguments for keyword, arguments in final_stage((ROOT / "Dockerfile").read_text()) if keyword == "HEALTHCHECK"
    )
    probe = healthcheck.split(" CMD ", 1)[1]
    assert ":8501/" in probe, probe
    log = image.filesystem.parent / "streamlit.log"
    with open(log, "w") as output:
        process = subprocess.Popen(
            command, cwd=image.app, env=image_environment(), stdout=output, stderr=subprocess.STDOUT
        )
    try:
        status, body = _script_health(process, f"http://127.0.0.1:{port}/_stcore/script-health-check", log)
        assert (status, body) == (200, "ok"), f"{status} {body!r}\n{log.read_text()[-4000:]}"
        probe_run = subprocess.run(
            ["/bin/sh", "-c", probe.replace(":8501/", f":{port}/")],
            cwd=image.app,
            env=image_environment(),
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert probe_run.returncode == 0, f"the Dockerfile's HEALTHCHECK failed:\n{probe_run.stderr}"
    finally:
        stop_process(process, grace=20)
