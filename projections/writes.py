"""The projector's work items: one projection's script call for one table.

Each projection writer turns a table's state into a :class:`ScriptWrite` (its script,
keys and arguments, every one guarded by the seq it shows). The projector sends a
batch's writes in one pipeline as ``EVALSHA`` and then does what each write's reply
asks for, by the write's type (``projections/runner.py``): a :class:`LobbyWrite`
answered -1 found the record changed since its read and is written again alone, a
:class:`NoticesWrite` tells the notified seats' players on their own streams, the
others need nothing more. Frozen dataclasses, not msgspec Structs: they never leave
the process.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from redis.commands.core import AsyncScript


@dataclass(frozen=True, slots=True)
class ScriptWrite:
    """A projection's script call for one table."""

    table_id: str
    script: AsyncScript  # its source, and its sha once loaded
    keys: list[str]
    args: list[Any]

    def queue(self, pipe: Any) -> None:
        """Queue the call on a pipeline (the script must be loaded)."""
        # execute_command, not pipe.evalsha: a cluster pipeline refuses the method
        # (not the command), and routes the command by its keys.
        pipe.execute_command("EVALSHA", self.script.sha, len(self.keys), *self.keys, *self.args)

    async def run(self) -> Any:
        """The call on its own (loading the script when the server lacks it)."""
        return await self.script(keys=self.keys, args=self.args)


@dataclass(frozen=True, slots=True)
class ViewsWrite(ScriptWrite):
    """Every seat's view and the spectators' (projections/views.py)."""


@dataclass(frozen=True, slots=True)
class ScoreWrite(ScriptWrite):
    """The table's live score (projections/scoreboard.py)."""


@dataclass(frozen=True, slots=True)
class LobbyWrite(ScriptWrite):
    """The table's lobby record and listings (projections/lobby.py); its script
    answers -1 when the record changed since the read it was computed from."""


@dataclass(frozen=True, slots=True)
class NoticesWrite(ScriptWrite):
    """The table's deadlines and "your turn" notices (projections/notices.py); the
    script answers the seats it notified."""

    turns: dict[int, int]  # candidate seat -> the seq its turn began at
