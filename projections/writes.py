"""The projector's work items: one projection's script call for one table.

Each projection writer turns a table's state into a :class:`ScriptWrite` (its script,
keys and arguments, every one guarded by the seq it shows). The projector sends a
batch's writes in one pipeline as ``EVALSHA`` and then does what each write's reply
asks for, by the write's type (``projections/runner.py``): a :class:`LobbyWrite`
answered -1 found the record changed since its read and is written again alone, a
:class:`NoticesWrite` tells the notified seats' players on their own streams, the
others need nothing more. Frozen dataclasses, not msgspec Structs: they never leave
the process. A partition's writes go in one :class:`WriteBatch` call, which can also
acknowledge the feed entries they apply (:class:`FeedAck`, whose ``done`` the call sets).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from redis.commands.core import AsyncScript

from orrery_contracts.lobby import LobbyTable
from orrery_contracts.text import as_text
from streams.scripts import queue_evalsha


@dataclass(frozen=True, slots=True)
class ScriptWrite:
    """A projection's script call for one table."""

    table_id: str
    script: AsyncScript  # its source, and its sha once loaded
    keys: list[str]
    args: list[Any]

    def queue(self, pipe: Any) -> None:
        """Queue the call on a pipeline (the script must be loaded)."""
        queue_evalsha(pipe, self.script.sha, self.keys, self.args)

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
    answers 1 when it wrote ``record``, 0 when a newer one was there, -1 when the record
    changed since the one it was computed from."""

    record: LobbyTable  # what it writes (the writer remembers it once written)


@dataclass(frozen=True, slots=True)
class NoticesWrite(ScriptWrite):
    """The table's deadlines and "your turn" notices (projections/notices.py); the
    script answers the seats it notified."""

    # candidate seat -> its verified player and the notice, for the player's own stream
    # (built with the call: the cached state may be folded further before the reply)
    to_players: dict[int, tuple[str, bytes]]


@dataclass(slots=True)
class FeedAck:
    """A feed's entries that the call writing their partition's tables acknowledges
    (``XACK``) once every write in it is made; ``done`` tells the caller it did."""

    stream: str
    group: str
    ids: list[bytes]
    done: bool = False


# Runs several writes' scripts, each as a local function (SCRIPTS, defined before this
# text), in one call, then acknowledges the feed entries they apply. ARGV: 1 the write
# count n, 2 the count m of entry ids to acknowledge (0: none), 3 the feed's group, then
# per write (kind, key count, arg count), then the m ids, then every write's arguments in
# order; KEYS: every write's keys in order, then the feed stream when m > 0.
# Answers each write's reply in order, then 1 if it acknowledged the entries, else 0. A
# write that raised answers its error, and the writes after it still run (one table's
# broken key does not hold back its neighbours'); then nothing is acknowledged, nor when
# a write answered -1 (the lobby's: refused, the caller writes it again), so the entries
# stay the caller's until every write is made.
_DRIVER = (Path(__file__).parent / "writes_driver.lua").read_text()


class WriteBatch:
    """One script call for several writes of a partition's tables: each write's own
    script runs inside it, in order, and the partition's feed entries that they apply
    can be acknowledged in the same call. One ``EVALSHA`` per partition and batch
    instead of one per projection and table, and no round trip of its own for the
    ``XACK``. (Its keys share the partition's hash slot, except the lobby's, which only
    a standalone server lets it hold.)"""

    def __init__(self, redis: Any, scripts: list[AsyncScript]) -> None:
        functions = [
            f"local function script_{i}(KEYS, ARGV)\n{as_text(s.script)}\nend"
            for i, s in enumerate(scripts, 1)
        ]
        names = ", ".join(f"script_{i}" for i in range(1, len(scripts) + 1))
        source = "\n".join([*functions, f"local SCRIPTS = {{{names}}}", _DRIVER])
        self.script = redis.register_script(source)
        self.kinds = {id(s): i for i, s in enumerate(scripts, 1)}

    def queue(self, pipe: Any, writes: list[ScriptWrite], ack: FeedAck | None = None) -> None:
        """Queue the one call for ``writes`` (the script must be loaded), acknowledging
        ``ack``'s entries after them; its reply is a list: each write's reply or error, in
        order, then 1 if the entries were acknowledged (:meth:`replies`)."""
        ids = ack.ids if ack is not None else []
        args: list[Any] = [len(writes), len(ids), ack.group if ack is not None else ""]
        for write in writes:
            args += [self.kinds[id(write.script)], len(write.keys), len(write.args)]
        args += ids
        for write in writes:
            args += write.args
        all_keys = [key for write in writes for key in write.keys]
        if ack is not None and ids:
            all_keys.append(ack.stream)
        queue_evalsha(pipe, self.script.sha, all_keys, args)

    @staticmethod
    def replies(result: list[Any], ack: FeedAck | None) -> list[Any]:
        """The writes' replies from the call's reply (marking ``ack`` done if it was)."""
        if ack is not None and result[-1] == 1:
            ack.done = True
        return result[:-1]
