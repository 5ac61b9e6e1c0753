"""The file system the web client is served from: ``clients/web/`` as a browser needs
it, nothing else.

Only the types a browser loads are served (HTML, JavaScript, CSS, JSON, images, fonts):
the Python files beside them (``export.py``, ``__init__.py``, caches) are 404, like a
path that does not exist. A path holding a NUL character is not found either (the
operating system would refuse it: a ``ValueError`` and a 500 before).
"""

from __future__ import annotations

from pathlib import PurePath
from typing import Any

from litestar.file_system import BaseLocalFileSystem
from litestar.types import PathType
from litestar.types.file_types import FileInfo

SERVED = frozenset(
    {".html", ".js", ".mjs", ".css", ".json", ".svg", ".png", ".ico", ".webp", ".woff2", ".txt"}
)


class WebFileSystem(BaseLocalFileSystem):
    async def info(self, path: PathType, **kwargs: Any) -> FileInfo:
        text = str(path)
        if "\x00" in text or "__pycache__" in PurePath(text).parts:
            raise FileNotFoundError(text)
        info = await super().info(path, **kwargs)
        if info["type"] == "file" and PurePath(text).suffix.lower() not in SERVED:
            raise FileNotFoundError(text)
        return info
