"""The Debian packages some tests need (Chromium, a CJK font, nginx) are installed in one place, `.ci/system-packages`,
which CI's `.ci/run` calls and the README names; a test never installs anything, it says what to run."""

import pytest

SCRIPT = ".ci/system-packages"


def require_system_packages(**present: bool) -> None:
    """Fail the test, naming the script that installs them, when a package (keyword: package name, value: whether
    it is there) is missing."""
    missing = [package for package, found in present.items() if not found]
    if missing:
        pytest.fail(f"Missing Debian packages {', '.join(missing)}: run `{SCRIPT}` (as root, or with sudo).")
