"""The VAPID key (RFC 8292) the notifiers sign Web Push requests with, and whose public
half browsers subscribe with (``applicationServerKey``).

``$ORRERY_VAPID_PRIVATE_KEY`` (the P-256 private scalar, base64url), else a key made at
first start in the data folder (``vapid.key``, mode 0600), which ``orrery serve`` hands to
every process it starts, like the server key. ``python -m notify.vapid`` prints a new one
for a deployment's secrets.
"""

from __future__ import annotations

import base64
import os
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from py_vapid import Vapid02

from notify.settings import VAPID_KEY_ENV

KEY_FILE = "vapid.key"


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def new_private_key() -> str:
    key = ec.generate_private_key(ec.SECP256R1())
    return _b64(key.private_numbers().private_value.to_bytes(32, "big"))


def load_private_key(data_dir: Path | None) -> str:
    """``$ORRERY_VAPID_PRIVATE_KEY``, else the key kept in ``data_dir`` (made on first
    use)."""
    from_env = os.environ.get(VAPID_KEY_ENV, "")
    if from_env:
        return from_env
    if data_dir is None:
        raise RuntimeError(f"no VAPID key: set ${VAPID_KEY_ENV}")
    path = Path(data_dir) / KEY_FILE
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            return path.read_text().strip()
        with os.fdopen(fd, "w") as out:
            out.write(new_private_key())
    return path.read_text().strip()


def vapid(private_key: str) -> Vapid02:
    return Vapid02.from_raw(private_key.encode())


def public_key(private_key: str) -> str:
    """The application server key browsers subscribe with (uncompressed point,
    base64url)."""
    point = vapid(private_key).public_key.public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    return _b64(point)


if __name__ == "__main__":
    print(new_private_key())
