"""orrery-client: the Python SDK for Orrery's wire contract, and a random-move bot.

Installable on its own (``pip install ./clients``: the distribution ``orrery-client``,
depending on redis and msgspec only); the server distribution ``orrery`` includes it.
Its two import packages are ``orrery_client`` (this one) and ``orrery_contracts`` (the
wire contract's msgspec types), so it claims no generic top-level name in an app.

    from orrery_client import OrreryClient

    async with OrreryClient("redis://app:secret@localhost:6379/0") as client:
        ...
"""

from orrery_client.sdk import (
    CommandRejected,
    OrreryClient,
    Played,
    SeatCredentials,
    new_seat_token,
    settled,
)

__all__ = [
    "CommandRejected",
    "OrreryClient",
    "Played",
    "SeatCredentials",
    "new_seat_token",
    "settled",
]
