"""A live socket's two halves (gateway/sockets.py's ``until_one_ends``) and the signal
they wait on (gateway/signals.py): whichever half ends, the other is ended; a refusal
either raises is sent as an error frame and close code; a cancellation from outside
(the server stopping) goes through."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from gateway.errors import ApiError
from gateway.signals import Signal
from gateway.sockets import WS_UNAUTHORIZED, until_one_ends

pytestmark = pytest.mark.unit


class _Url:
    path = "/v1/tables/t/live"


class FakeSocket:
    """What a refusal touches of a socket: its path, a frame sent, a close."""

    url = _Url()

    def __init__(self) -> None:
        self.sent: list[str] = []
        self.closed: int | None = None

    async def send_text(self, text: str) -> None:
        self.sent.append(text)

    async def close(self, code: int, **_: Any) -> None:
        self.closed = code


async def _forever(ended: list[str], name: str) -> None:
    try:
        await asyncio.Event().wait()
    finally:
        ended.append(name)


async def _expire_after(delay: float) -> None:
    await asyncio.sleep(delay)
    raise ApiError(401, "session_expired", "the session has expired; sign in again")


async def test_a_refusal_of_the_pushing_half_ends_the_receiving_one_and_is_sent() -> None:
    socket, ended = FakeSocket(), list[str]()
    async with asyncio.timeout(10):
        await until_one_ends(socket, _expire_after(0.01), _forever(ended, "receiving"))  # type: ignore[arg-type]
    assert ended == ["receiving"]
    assert socket.closed == WS_UNAUTHORIZED and "session_expired" in socket.sent[0]
    assert asyncio.current_task().cancelling() == 0  # type: ignore[union-attr]
    await asyncio.sleep(0.01)  # and no cancellation is left to land later


async def test_a_refusal_of_the_receiving_half_ends_the_pushing_one_and_is_sent() -> None:
    socket, ended = FakeSocket(), list[str]()
    async with asyncio.timeout(10):
        await until_one_ends(socket, _forever(ended, "pushing"), _expire_after(0.01))  # type: ignore[arg-type]
    assert ended == ["pushing"]
    assert socket.closed == WS_UNAUTHORIZED


async def test_a_client_that_left_ends_the_socket_quietly() -> None:
    socket, ended = FakeSocket(), list[str]()

    async def left() -> None:
        await asyncio.sleep(0.01)
        raise ConnectionResetError

    async with asyncio.timeout(10):
        await until_one_ends(socket, _forever(ended, "pushing"), left())  # type: ignore[arg-type]
    assert ended == ["pushing"] and socket.sent == [] and socket.closed is None


async def test_both_halves_ending_at_once_leave_no_cancellation_behind() -> None:
    socket = FakeSocket()

    async def quick() -> None:
        await asyncio.sleep(0)

    async with asyncio.timeout(10):
        await until_one_ends(socket, quick(), quick())  # type: ignore[arg-type]
        await asyncio.sleep(0.01)  # a stray cancel of this task would land here
    assert socket.sent == []


async def test_the_server_stopping_cancels_both_halves() -> None:
    socket, ended = FakeSocket(), list[str]()
    task = asyncio.create_task(
        until_one_ends(socket, _forever(ended, "pushing"), _forever(ended, "receiving"))  # type: ignore[arg-type]
    )
    await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert sorted(ended) == ["pushing", "receiving"]


async def test_a_signal_wakes_its_waiter_once_per_set_and_times_out() -> None:
    signal = Signal()
    assert not await signal.wait(0.01)  # nothing set: the wait times out
    waiting: Any = asyncio.create_task(signal.wait())
    await asyncio.sleep(0)
    signal.set()
    assert await asyncio.wait_for(waiting, 10) is True
    assert await signal.wait(0.01)  # still set: at once
    signal.clear()
    assert not signal.is_set() and not await signal.wait(0.01)
    assert Signal(on=True).is_set()
