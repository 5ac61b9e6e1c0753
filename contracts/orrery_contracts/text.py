"""Redis replies as text. A client made with ``decode_responses=False`` answers bytes
and one made with it answers str, and the same code reads through both (the workers',
the projector's and the tools' clients differ), so every reader converts the same way."""

from __future__ import annotations


def as_text(value: object) -> str:
    """``value`` as text: bytes-like values decoded as UTF-8, anything else by ``str``."""
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value).decode()
    return str(value)
