"""What every HTTP request is checked for before its handler runs: ``OPTIONS`` answers
with every method of the path, and a query parameter given twice is refused.

Litestar makes one ``OPTIONS`` handler per path, but when two routers add handlers to
the same path (``GET`` and ``POST /v1/tables``) that handler keeps the first router's
methods; here the methods come from the app's final routes. A repeated parameter
(``?limit=abc&limit=1``) would otherwise be read as its last value, so a client's bug
(or a proxy's) would pass unnoticed: 422 ``repeated_parameter``. (405 answers carry
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
    names = [name for name, _ in request.query_params.multi_items()]
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise ApiError(
            422, "repeated_parameter", f"give each query parameter once ({repeated[0][:40]})"
        )
    return None
