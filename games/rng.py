"""Per-command randomness derived from the table's secret seed.

The RNG for the command whose first event gets sequence number ``seq`` is seeded with
SHA-256(seed || seq). The seed's commitment is public from the first event and the
seed itself is revealed in the last one, so anyone holding the log can re-derive
every RNG and re-run every decision.
"""

from __future__ import annotations

import hashlib
import secrets
from random import Random


def new_seed() -> bytes:
    return secrets.token_bytes(32)


def seed_commitment(seed: bytes) -> str:
    return hashlib.sha256(seed).hexdigest()


def derive_rng(seed: bytes, seq: int) -> Random:
    digest = hashlib.sha256(seed + seq.to_bytes(8, "big")).digest()
    return Random(int.from_bytes(digest, "big"))
