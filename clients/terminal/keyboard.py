"""Lines typed at the terminal (or piped in), delivered to the event loop.

A daemon thread reads standard input line by line and hands each line to an asyncio
queue; a blocked read never holds up the loop, and never holds up the interpreter's
exit (Ctrl-C or ``q`` ends the program at once, whatever the thread is waiting for).
"""

from __future__ import annotations

import asyncio
import sys
import threading
from typing import TextIO


class StdinLines:
    """A :class:`clients.terminal.session.LineSource` over a text stream."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self._queue: asyncio.Queue[str | None] = asyncio.Queue()
        self._loop = asyncio.get_running_loop()
        self._stream = stream if stream is not None else sys.stdin
        threading.Thread(target=self._read, name="orrery-stdin", daemon=True).start()

    def _read(self) -> None:
        while True:
            try:
                line: str | None = self._stream.readline()
            except (OSError, ValueError):  # closed under us
                line = ""
            if not line:
                line = None
            try:
                self._loop.call_soon_threadsafe(
                    self._queue.put_nowait, line.rstrip("\r\n") if line else None
                )
            except RuntimeError:  # the loop is closed: the program is ending
                return
            if line is None:
                return

    async def get(self) -> str | None:
        return await self._queue.get()
