"""Hosting files: the config says what the README promises, and every file the instructions name exists."""

import ast
import re
import tomllib
from pathlib import Path

import pytest

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
    assert "--server.address=0.0.0.0" in dockerfile


@pytest.mark.parametrize("source", re.findall(r"^COPY (?:--\S+ )*(\S+)", (ROOT / "Dockerfile").read_text(), re.M))
def test_every_file_the_dockerfile_copies_exists(source):
    assert (ROOT / source).exists(), source


def test_the_image_gets_every_package_the_app_imports():
    """A package of this repository that the app imports but the Dockerfile does not copy fails only in the image."""
    copied = set(re.findall(r"^COPY (?:--\S+ )*(\S+)", (ROOT / "Dockerfile").read_text(), re.M))
    imported = set()
    for path in [ROOT / "navigation.py", *(ROOT / "pages").glob("*.py"), *(ROOT / "charts").glob("*.py")]:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                imported |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                imported.add(node.module.split(".")[0])
    ours = {name for name in imported if (ROOT / name / "__init__.py").exists()}
    assert {"charts", "posenc", "ui"} <= ours  # the scan itself works
    assert ours <= copied, ours - copied


def test_every_repository_path_the_readme_names_exists():
    readme = (ROOT / "README.md").read_text()
    named = set(re.findall(r"`((?:\.?[\w-]+/)*[\w.-]+\.(?:py|txt|toml|conf|md|png)|[\w.-]+/|Dockerfile)`", readme))
    named -= {"README.md"}  # a Space's own README, in the Hugging Face section
    missing = [path for path in sorted(named) if not (ROOT / path).exists()]
    assert not missing, missing


def test_proxy_example_is_sticky_and_hides_metrics():
    nginx = (ROOT / "deploy" / "nginx.conf").read_text()
    assert "ip_hash;" in nginx
    assert "location = /_stcore/metrics { return 404; }" in nginx
    assert "proxy_set_header Upgrade $http_upgrade;" in nginx
