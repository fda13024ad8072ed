"""Hosting files: the config says what the README promises, the Docker image holds what the app reads, and every
file the instructions name exists."""

import ast
import json
import re
import tomllib
from pathlib import Path

import pytest
from docker_context import (
    Copy,
    DockerIgnore,
    MaterialisedImage,
    dockerfile_copies,
    final_stage,
    materialise_image,
    workdir,
)

from ui.i18n import LANGUAGES

ROOT = Path(__file__).resolve().parents[1]


def test_hosting_config():
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["server"]["headless"] is True
    assert config["server"]["enableXsrfProtection"] is True
    assert config["server"]["fileWatcherType"] == "none"
    assert config["server"]["runOnSave"] is False
    assert config["server"]["scriptHealthCheckEnabled"] is True  # the Docker health check runs the app once
    assert config["server"]["maxMessageSize"] >= 2  # MB: the largest rerun sends about 1.5 MB
    assert config["browser"]["gatherUsageStats"] is False
    assert config["client"]["showErrorDetails"] == "none"
    assert config["client"]["toolbarMode"] == "viewer"


def test_dockerfile_runs_as_non_root_with_a_healthcheck():
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert re.search(r"^FROM python:3\.11-slim", dockerfile, re.M)
    user = re.search(r"^USER (\S+)", dockerfile, re.M)
    assert user and user.group(1) not in ("root", "0")
    assert "HEALTHCHECK" in dockerfile and "/_stcore/script-health-check" in dockerfile
    command = next(arguments for keyword, arguments in final_stage(dockerfile) if keyword == "CMD")
    assert json.loads(command) == ["streamlit", "run", "app.py", "--server.address=0.0.0.0", "--server.port=8501"]


def test_the_dockerfile_installs_requirements_then_copies_the_whole_context():
    """requirements.txt alone first, so the dependency layer is cached while the app changes; then everything the
    build context holds (.dockerignore says what it leaves out), so no folder the app reads can be forgotten."""
    dockerfile = (ROOT / "Dockerfile").read_text()
    app = workdir(dockerfile)
    assert dockerfile_copies(dockerfile) == [
        Copy(("requirements.txt",), app, (), True),
        Copy((".",), app, ("--chown=lab:lab",), True),
    ]
    stage = final_stage(dockerfile)
    install = next(
        i for i, (word, arguments) in enumerate(stage) if word == "RUN" and "-r requirements.txt" in arguments
    )
    copy_all = next(i for i, (word, arguments) in enumerate(stage) if word == "COPY" and arguments.endswith(" . ."))
    assert install < copy_all


@pytest.fixture(scope="module")
def image(tmp_path_factory) -> MaterialisedImage:
    """The files ``docker build .`` puts in the image (see tests/docker_context.py)."""
    return materialise_image(ROOT, tmp_path_factory.mktemp("docker-image"))


def test_the_image_holds_every_package_and_data_file_the_app_reads(image):
    """A repository package the app imports, or a data folder it reads by path, that the image lacks fails only in
    the image (tests/test_docker_context.py runs every page from it; this names the missing file at once)."""
    files = set(image.files())
    imported = set()
    for relative in files:
        if relative.endswith(".py"):
            for node in ast.walk(ast.parse((image.app / relative).read_text())):
                if isinstance(node, ast.Import):
                    imported |= {alias.name.split(".")[0] for alias in node.names}
                elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                    imported.add(node.module.split(".")[0])
    ours = {name for name in imported if (ROOT / name / "__init__.py").exists() or (ROOT / f"{name}.py").exists()}
    assert {"charts", "figures", "posenc", "ui"} <= ours  # the scan itself works
    assert not [name for name in ours if f"{name}/__init__.py" not in files and f"{name}.py" not in files]
    assert {"app.py", "navigation.py", ".streamlit/config.toml", "assets/icon.png", "static/live.js"} <= files
    views = {path.relative_to(ROOT).as_posix() for path in (ROOT / "static" / "views").glob("*.js")}
    assert views and views <= files, sorted(views - files)  # the pages' own live views, imported by live.js
    catalogs = {path.relative_to(ROOT).as_posix() for path in (ROOT / "locales").glob("*/*.toml")}
    assert {f"locales/{lang}/app.toml" for lang in LANGUAGES} <= catalogs  # every language has a catalog
    assert catalogs <= files, sorted(catalogs - files)
    checkpoints = {  # the arithmetic models and, in assets/toy/extrapolation/, the train-short-test-long ones
        path.relative_to(ROOT).as_posix() for path in (ROOT / "assets" / "toy").rglob("*") if path.is_file()
    }
    assert checkpoints and checkpoints <= files, sorted(checkpoints - files)
    pages = {path.relative_to(ROOT).as_posix() for path in (ROOT / "pages").glob("*.py")}
    assert pages <= files, sorted(pages - files)


def test_the_image_leaves_out_what_the_app_never_reads(image):
    files = image.files()
    left_out = ("tests/", "bench/", "artifacts/", "deploy/", ".git/", ".ci/", ".hypothesis/", ".ruff_cache/")
    assert not [path for path in files if path.startswith(left_out)]
    assert not [path for path in files if "__pycache__" in path.split("/") or path.endswith((".pyc", ".pyo"))]
    ignore = DockerIgnore.of(ROOT)  # also for files that are not on this disk now
    for path in ("ui/__pycache__/i18n.cpython-311.pyc", "posenc/toy/__pycache__/x.pyc", ".streamlit/secrets.toml"):
        assert ignore.excludes(path), path
    for path in ("locales/ko/app.toml", "assets/toy/rope.pt", ".streamlit/config.toml", "requirements.txt"):
        assert not ignore.excludes(path), path


def test_every_repository_path_the_docs_name_exists():
    docs = "\n".join(path.read_text() for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))])
    named = set(re.findall(r"`((?:\.?[\w-]+/)*[\w.-]+\.(?:py|txt|toml|conf|md|png)|[\w.-]+/|Dockerfile)`", docs))
    named -= {"README.md"}  # a Space's own README, in the Hugging Face section
    missing = [path for path in sorted(named) if not (ROOT / path).exists()]
    assert not missing, missing


def test_proxy_example_is_sticky_and_hides_metrics():
    nginx = (ROOT / "deploy" / "nginx.conf").read_text()
    assert "hash $posenc_route_key consistent;" in nginx  # sticky per browser (route cookie), not per address
    assert "ip_hash;" not in [line.split("#")[0].strip() for line in nginx.splitlines()]
    assert "proxy_set_header Host $http_host;" in nginx  # keeps the port: Streamlit compares Origin with Host
    # metrics and the script health check stay inside (tests/test_proxy.py asks a real nginx for both)
    assert "location ~ /_stcore/(metrics|script-health-check)$ { return 404; }" in nginx
    assert "proxy_set_header Upgrade $http_upgrade;" in nginx
