"""The one way to copy a game state: a msgpack round trip through the state's own type.

A game's ``decide`` copies the state when it must simulate a chain of events (``evolve``
may update a state in place, see :mod:`games.protocol`), and the platform copies a state
for snapshots and undo. A round trip through msgspec is exact for every field a state
can hold (states are msgspec Structs), needs no per-game code that drifts when a field
is added, and costs a few microseconds. Encoders and decoders are made once per type.
"""

from __future__ import annotations

from typing import Any, TypeVar

import msgspec

S = TypeVar("S", bound=msgspec.Struct)

_encoder = msgspec.msgpack.Encoder()
_decoders: dict[type[Any], msgspec.msgpack.Decoder[Any]] = {}


def clone(state: S) -> S:
    """An independent copy of ``state`` (nothing shared but immutable values)."""
    kind = type(state)
    decoder = _decoders.get(kind)
    if decoder is None:
        decoder = _decoders[kind] = msgspec.msgpack.Decoder(kind)
    copied: S = decoder.decode(_encoder.encode(state))
    return copied
