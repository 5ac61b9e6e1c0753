"""Per-command randomness derived from the table's secret seed.

The RNG for the command whose first event gets sequence number ``seq`` is seeded with
SHA-256(seed || seq). The seed's commitment is public from the first event and the
seed itself is revealed in the last one, so anyone holding the log can re-derive
every RNG and re-run every decision.

Most commands draw nothing, and seeding a Mersenne Twister from 256 bits costs more
than deciding most commands, so :func:`derive_rng` hands out a :class:`DeferredRandom`:
a ``random.Random`` that seeds itself with exactly that number at its first draw (the
same numbers as ``Random(number)`` would give, draw for draw).
"""

from __future__ import annotations

import _random
import hashlib
import secrets
from random import Random
from typing import Any

_seed_state = _random.Random.seed  # the C seeding, as Random.seed does for an int
_c_random = _random.Random.random
_c_getrandbits = _random.Random.getrandbits


def new_seed() -> bytes:
    return secrets.token_bytes(32)


def seed_commitment(seed: bytes) -> str:
    return hashlib.sha256(seed).hexdigest()


class DeferredRandom(Random):
    """``Random(number)``, seeded at its first draw.

    Every draw of ``random.Random`` goes through ``random()`` or ``getrandbits()``
    (``randint``, ``choice``, ``shuffle``, ``sample``, ``gauss``...), so those two seed
    the generator and then hand their place to the C methods for the instance; the
    state's own accessors seed it first too.
    """

    def __init__(self, number: int) -> None:  # (no super().__init__: that seeds now)
        self._number = number
        self.gauss_next = None

    def _seed_now(self) -> None:
        _seed_state(self, self._number)
        self._seeded()

    def _seeded(self) -> None:
        """From now on the C methods draw for this instance directly."""
        self.__dict__["random"] = _c_random.__get__(self)
        self.__dict__["getrandbits"] = _c_getrandbits.__get__(self)

    # (a caller may hold these bound before the first draw, as ``gauss`` does: each
    # seeds only once)
    def random(self) -> float:
        if "random" not in self.__dict__:
            self._seed_now()
        return _c_random(self)

    def getrandbits(self, k: int, /) -> int:
        if "random" not in self.__dict__:
            self._seed_now()
        return _c_getrandbits(self, k)

    def getstate(self) -> tuple[Any, ...]:
        if "random" not in self.__dict__:
            self._seed_now()
        return super().getstate()

    def setstate(self, state: tuple[Any, ...]) -> None:
        super().setstate(state)
        self._seeded()

    def seed(self, a: Any = None, version: int = 2) -> None:
        super().seed(a, version)
        self._seeded()

    def __reduce__(self) -> tuple[Any, ...]:
        """A copy (``copy``, ``pickle``) is a plain ``Random`` in the same state."""
        return (Random, (), self.getstate())


def derive_rng(seed: bytes, seq: int) -> Random:
    digest = hashlib.sha256(seed + seq.to_bytes(8, "big")).digest()
    return DeferredRandom(int.from_bytes(digest, "big"))
