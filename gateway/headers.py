"""Security headers on every HTTP response the gateway sends (an app-wide
``before_send`` hook, so error pages, 404s and 405s get them too).

* ``X-Content-Type-Options: nosniff`` everywhere (a JSON body is never run as script);
* ``Content-Security-Policy``: the web client runs under ``default-src 'self'`` with no
  inline script or style and no ``eval``: ES modules and style sheets from this origin
  only, images from it (and ``data:``, the empty favicon), fetch and WebSockets to this
  origin only (``connect-src 'self'`` covers ``ws:``/``wss:`` to the same host), no
  plugins, no ``<base>``, forms post here, and no page may frame it
  (``frame-ancestors 'none'``, with ``X-Frame-Options: DENY`` for older browsers).
  Swagger UI (``/v1/docs``) is the one page with a looser policy: it loads its script
  and styles from its CDN and starts with an inline script;
* ``Referrer-Policy: no-referrer``: a table's URL (its id, a replay step) never leaves;
* API answers (``/v1``, ``/healthz``, ``/readyz``) are ``Cache-Control: no-store``: a
  view, a session or a player's tables never rest in a shared or browser cache.
"""

from __future__ import annotations

from litestar.types import Message, Scope

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'"
)
_DOCS_CDN = "https://cdn.jsdelivr.net"
DOCS_CSP = (
    f"default-src 'self'; script-src 'self' 'unsafe-inline' {_DOCS_CDN}; "
    f"style-src 'self' 'unsafe-inline' {_DOCS_CDN}; img-src 'self' data: {_DOCS_CDN}; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
)
DOCS_PATH = "/v1/docs"
_API_PREFIXES = ("/v1/", "/healthz", "/readyz")

_ALWAYS = [
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
]


def headers_for(path: str) -> list[tuple[bytes, bytes]]:
    docs = path == DOCS_PATH or path.startswith(DOCS_PATH + "/")
    added = [*_ALWAYS, (b"content-security-policy", (DOCS_CSP if docs else CSP).encode())]
    if path.startswith(_API_PREFIXES) or path in ("/v1", "/healthz", "/readyz"):
        added.append((b"cache-control", b"no-store"))
    return added


async def security_headers(message: Message, scope: Scope) -> None:
    """The ``before_send`` hook: add the headers to a response's start (replacing a
    ``Cache-Control`` the handler set on an API answer)."""
    if message["type"] != "http.response.start":
        return
    added = headers_for(scope.get("path", ""))
    names = {name for name, _ in added}
    kept = [(k, v) for k, v in message.get("headers", []) if k.lower() not in names]
    message["headers"] = [*kept, *added]
