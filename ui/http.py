"""HTTP middleware of the lab's server (``app.py`` passes it to ``st.App``): what Streamlit's own routes leave open.

- ``/_stcore/script-health-check`` runs the whole navigation script (≈ 100 ms of CPU) on every call, so anyone who
  can reach it can keep a replica busy with a loop. It answers only a request made on the replica's own host and
  not forwarded by a proxy (the container's health check, a laptop's own browser); anyone else gets 404.
  ``deploy/nginx.conf`` refuses it too.
- A class checkpoint's poll (or the browser-id element's answer) that a browser sent for the page it has just left
  is dropped on the websocket (:mod:`ui.page_switch`): Streamlit would run it as the old page and the browser's
  page would go white.
- The app's own static files (``app/static/…``; Streamlit sends them with no Cache-Control, so browsers cache them
  by guesswork): a URL with the current release's version (``?v=``, :mod:`ui.static_files`) is cached for good, any
  other is revalidated on every use, so no browser runs an old ``live.js`` after a new release.
"""

from __future__ import annotations

import ipaddress
from urllib.parse import parse_qs

from ui.page_switch import filtered_receive
from ui.static_files import STATIC_VERSION

HEALTH_CHECK = "/_stcore/script-health-check"
STREAM = "/_stcore/stream"  # the browser's websocket
APP_STATIC = "/app/static/"
FORWARDED = (b"x-forwarded-for", b"forwarded", b"x-real-ip")  # set by a proxy in front (nginx sets the first)
IMMUTABLE = b"public, max-age=31536000, immutable"
REVALIDATE = b"no-cache"


def from_own_host(scope: dict) -> bool:
    """True for a request from a loopback address that no proxy forwarded."""
    client = scope.get("client") or ("", 0)
    try:
        loopback = ipaddress.ip_address(client[0]).is_loopback
    except ValueError:
        return False
    return loopback and not any(name in FORWARDED for name, _ in scope.get("headers", ()))


def static_cache_control(query_string: bytes) -> bytes:
    """Cache-Control for a static file asked for with this query string."""
    versions = parse_qs(query_string.decode("latin-1")).get("v", [])
    return IMMUTABLE if versions == [STATIC_VERSION] else REVALIDATE


class LabHttpGuard:
    """Pure ASGI middleware."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] == "websocket" and scope.get("path", "").endswith(STREAM):
            return await self.app(scope, filtered_receive(receive), send)
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        path = scope.get("path", "")
        if path.endswith(HEALTH_CHECK) and not from_own_host(scope):
            return await _not_found(send)
        if APP_STATIC in path:
            cache_control = static_cache_control(scope.get("query_string", b""))

            async def send_cacheable(message):
                if message["type"] == "http.response.start" and message.get("status") in (200, 304):
                    headers = [(k, v) for k, v in message.get("headers", []) if k.lower() != b"cache-control"]
                    message = {**message, "headers": [*headers, (b"cache-control", cache_control)]}
                await send(message)

            return await self.app(scope, receive, send_cacheable)
        return await self.app(scope, receive, send)


async def _not_found(send) -> None:
    body = b"not found"
    headers = [(b"content-type", b"text/plain; charset=utf-8"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": 404, "headers": headers})
    await send({"type": "http.response.body", "body": body})
