"""What every HTTP request is checked for before its handler runs: ``OPTIONS`` answers
with every method of the path, and a query parameter given twice is refused.

Litestar makes one ``OPTIONS`` handler per path, but when two routers add handlers to
the same path (``GET`` and ``POST /v1/tables``) that handler keeps the first router's
methods; here the methods come from the app's final routes. A repeated parameter
(``?limit=abc&limit=1``) would otherwise be read as its last value, so a client's bug
(or a proxy's) would pass unnoticed: 422 ``repeated_parameter``; and ``?at=null``, which
Litestar reads as the parameter left out, is 422 ``malformed``. (405 answers carry
``Allow`` in gateway.errors.)
"""

from __future__ import annotations

from typing import Any

from litestar import Request, Response
from litestar.routes import HTTPRoute
from litestar.status_codes import HTTP_204_NO_CONTENT

from gateway.errors import ApiError


def allowed_methods(request: Request[Any, Any, Any]) -> list[str]:
    template = request.scope.get("path_template")
    for route in request.app.routes:
        if isinstance(route, HTTPRoute) and template in (route.path, route.path_format):
            return sorted(route.methods)
    return ["OPTIONS"]


async def check_request(request: Request[Any, Any, Any]) -> Response[None] | None:
    if request.method == "OPTIONS":
        return Response(
            None,
            status_code=HTTP_204_NO_CONTENT,
            headers={"Allow": ", ".join(allowed_methods(request))},
        )
    items = list(request.query_params.multi_items())
    names = [name for name, _ in items]
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise ApiError(
            422, "repeated_parameter", f"give each query parameter once ({repeated[0][:40]})"
        )
    nulls = [name for name, value in items if value == "null"]
    if nulls:
        # Litestar reads "null" as None for an optional parameter: the same as leaving it
        # out, which the client did not say. No parameter of this API takes "null".
        raise ApiError(
            422, "malformed", f"leave a parameter out rather than null ({nulls[0][:40]})"
        )
    return None
