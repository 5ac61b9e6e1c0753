"""The seeded draw that settles what nothing else does (the last tie-break, a shared first
place in elimination, the seed order among equal ratings): SHA-256 of the tournament's
seed and the player id, the smallest first."""

from __future__ import annotations

import hashlib


def draw_key(seed: str, player: str) -> str:
    return hashlib.sha256(f"{seed}:{player}".encode()).hexdigest()
