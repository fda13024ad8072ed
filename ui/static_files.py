"""The app's own static files (``static/``, served by Streamlit at ``app/static/…``) and the version in their URLs.

``STATIC_VERSION`` is a hash of every file under ``static/``: the live charts load ``app/static/live.js?v=<version>``
(and live.js passes the same ``?v=`` on to ``views/*.js``), so a new release is a new URL and no browser keeps an
old script. Responses for a URL with the current version may then be cached for good (:mod:`ui.http` marks them
immutable); any other request for these files is revalidated.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

STATIC_DIR = Path(__file__).resolve().parents[1] / "static"


def static_version(folder: Path = STATIC_DIR) -> str:
    """sha256 over every file's path and bytes under ``folder``, in path order: 12 hex digits."""
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        digest.update(path.relative_to(folder).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:12]


STATIC_VERSION = static_version()
