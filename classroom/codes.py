"""Class codes, teacher secrets and browser ids: made at random, and read back from untrusted text. No Streamlit.

A class code is 6 characters from an alphabet without look-alikes (no 0/O, 1/I/L), so it can be read out in a hall
and typed on a phone: 30⁶ ≈ 7×10⁸ codes. What a visitor types is upper-cased and stripped of spaces and dashes;
anything longer than :data:`MAX_RAW` characters is rejected unread. A teacher's secret is 32 random URL-safe
characters; only its SHA-256 is stored, and it is compared in constant time.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets

ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ2345679"  # 30 characters: no 0 O 1 I L 8 (B/8 look alike on a projector)
CODE_LENGTH = 6
MAX_RAW = 32  # longer than any code with spaces or dashes: rejected unread
_BROWSER_ID = re.compile(r"[A-Za-z0-9_-]{16,64}")
_SECRET = re.compile(r"[A-Za-z0-9_-]{20,64}")


def new_code() -> str:
    """A random class code, e.g. ``K7QF3M``."""
    return "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))


def read_code(raw: object) -> str | None:
    """The class code in ``raw`` (a URL parameter or typed text), or None when it cannot be one."""
    if isinstance(raw, list):
        raw = raw[-1] if raw else ""
    if not isinstance(raw, str) or len(raw) > MAX_RAW:
        return None
    code = re.sub(r"[\s-]", "", raw).upper()
    if len(code) != CODE_LENGTH or any(char not in ALPHABET for char in code):
        return None
    return code


def new_secret() -> str:
    """A teacher's secret: 32 URL-safe characters (192 random bits)."""
    return secrets.token_urlsafe(24)


def secret_hash(secret: str) -> str:
    """What the store keeps of a secret: its SHA-256, hex."""
    return hashlib.sha256(secret.encode()).hexdigest()


def secret_matches(secret: object, stored_hash: str) -> bool:
    """Whether ``secret`` (untrusted) is the one whose hash is ``stored_hash``; constant time."""
    if not isinstance(secret, str) or not _SECRET.fullmatch(secret):
        return False
    return hmac.compare_digest(secret_hash(secret), stored_hash)


def read_browser_id(raw: object) -> str | None:
    """A browser's random id as its page sent it (16–64 URL-safe characters), or None."""
    return raw if isinstance(raw, str) and _BROWSER_ID.fullmatch(raw) else None


def new_browser_id() -> str:
    return secrets.token_urlsafe(16)
