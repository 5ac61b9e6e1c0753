"""Errors as the API shows them: ``{"error": "<stable code>", "message": "<text>"}``.

Every exception that reaches Litestar becomes such a body; unexpected ones are logged
here (type and place only, never arguments or locals) and answered ``internal_error``
without a stack trace. Redis being unreachable is ``unavailable`` (503).
"""

from __future__ import annotations

from typing import Any

import msgspec
import structlog
from litestar import Request, Response
from litestar.exceptions import (
    HTTPException,
    NotFoundException,
    PermissionDeniedException,
    ValidationException,
)
from redis.exceptions import RedisError

log = structlog.get_logger("orrery.gateway")
_json = msgspec.json.Encoder()


class ApiError(Exception):
    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        *,
        extra: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.extra = extra or {}
        self.headers = headers or {}


def error_response(
    status: int,
    code: str,
    message: str,
    extra: dict[str, Any] | None = None,
    headers: dict[str, str] | None = None,
) -> Response[bytes]:
    return Response(
        error_body(code, message, extra),
        status_code=status,
        media_type="application/json",
        headers=headers,
    )


_HTTP_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    413: "too_large",
    429: "rate_limited",
}


def error_body(code: str, message: str, extra: dict[str, Any] | None = None) -> bytes:
    return _json.encode({"error": code, "message": message, **(extra or {})})


def api_error_body(error: ApiError) -> tuple[int, bytes, dict[str, str]]:
    """An :class:`ApiError`'s status, body and headers (the command fast path's
    answer, gateway.fastpath; the app's: :func:`on_api_error`)."""
    return error.status, error_body(error.code, error.message, error.extra), error.headers


def on_api_error(request: Request[Any, Any, Any], error: ApiError) -> Response[bytes]:
    status, body, headers = api_error_body(error)
    return Response(body, status_code=status, media_type="application/json", headers=headers)


def on_http_exception(request: Request[Any, Any, Any], error: HTTPException) -> Response[bytes]:
    status = error.status_code
    if isinstance(error, ValidationException):
        # The body or a parameter does not fit the schema: say where, briefly.
        detail = error.extra if isinstance(error.extra, list) else []
        where = ", ".join(
            str(d.get("key") or d.get("message") or "") for d in detail if isinstance(d, dict)
        )
        message = "the request does not fit the API" + (f" ({where[:200]})" if where else "")
        return error_response(422, "malformed", message)
    if isinstance(error, NotFoundException):
        return error_response(404, "not_found", "no such resource")
    if isinstance(error, PermissionDeniedException):
        return error_response(403, "forbidden", "not allowed")
    code = _HTTP_CODES.get(status, "http_error")
    message = {
        413: "the request body is too large",
        405: "this method is not allowed here",
    }.get(status, str(error.detail)[:200] if status < 500 else "internal error")
    # 405 says which methods the path has (Litestar's routing puts them in ``allow``).
    allow = (error.headers or {}).get("allow") if status == 405 else None
    return error_response(status, code, message, headers={"Allow": allow} if allow else None)


def redis_error_body(error: RedisError, path: str) -> tuple[int, bytes]:
    log.warning("redis_unavailable", error=type(error).__name__, path=path)
    return 503, error_body("unavailable", "the service's store is unreachable; retry later")


def internal_error_body(error: Exception, path: str) -> tuple[int, bytes]:
    tb = error.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    where = f"{tb.tb_frame.f_code.co_filename}:{tb.tb_lineno}" if tb else "?"
    log.error("internal_error", error=type(error).__name__, where=where, path=path)
    return 500, error_body("internal_error", "internal error")


def on_redis_error(request: Request[Any, Any, Any], error: RedisError) -> Response[bytes]:
    return raw_error(*redis_error_body(error, request.url.path))


def on_internal_error(request: Request[Any, Any, Any], error: Exception) -> Response[bytes]:
    return raw_error(*internal_error_body(error, request.url.path))


def raw_error(status: int, body: bytes) -> Response[bytes]:
    return Response(body, status_code=status, media_type="application/json")


EXCEPTION_HANDLERS: dict[Any, Any] = {
    ApiError: on_api_error,
    HTTPException: on_http_exception,
    RedisError: on_redis_error,
    Exception: on_internal_error,
}
