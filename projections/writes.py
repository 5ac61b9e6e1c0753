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

from orrery_contracts.lobby import LobbyTable


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
    answers 1 when it wrote ``record``, 0 when a newer one was there, -1 when the record
    changed since the one it was computed from."""

    record: LobbyTable  # what it writes (the writer remembers it once written)
    # The record it replaces differs in its seq alone (a move in play): on a cluster it
    # rides in the write pipeline beside the views instead of going first
    # (projections/runner.py; a reader that needs it as new as a view waits for it).
    seq_only: bool = False


@dataclass(frozen=True, slots=True)
class NoticesWrite(ScriptWrite):
    """The table's deadlines and "your turn" notices (projections/notices.py); the
    script answers the seats it notified."""

    # candidate seat -> its verified player and the notice, for the player's own stream
    # (built with the call: the cached state may be folded further before the reply)
    to_players: dict[int, tuple[str, bytes]]


# Runs several writes' scripts, each as a local function (SCRIPTS, defined before this
# text), in one call. ARGV: 1 the write count n, then per write (kind, key count, arg
# count), then every write's arguments in order; KEYS: every write's keys in order.
# Answers each write's reply in order; a write that raised answers its error, and the
# writes after it still run (one table's broken key does not hold back its neighbours').
_DRIVER = """
local n = tonumber(ARGV[1])
local results = {}
local k, a = 0, 1 + 3 * n
for i = 1, n do
  local kind, nk, na = tonumber(ARGV[3 * i - 1]), tonumber(ARGV[3 * i]), tonumber(ARGV[3 * i + 1])
  local wkeys, wargv = {}, {}
  for j = 1, nk do wkeys[j] = KEYS[k + j] end
  for j = 1, na do wargv[j] = ARGV[a + j] end
  k, a = k + nk, a + na
  local ok, result = pcall(SCRIPTS[kind], wkeys, wargv)
  if ok then
    results[i] = result
  elseif type(result) == 'table' and result.err then
    results[i] = result
  else
    results[i] = {err = tostring(result)}
  end
end
return results
"""


class WriteBatch:
    """One script call for several writes whose keys share a hash slot (a partition's
    tables): each write's own script runs inside it, in order. One ``EVALSHA`` per
    partition and batch instead of one per projection and table."""

    def __init__(self, redis: Any, scripts: list[AsyncScript]) -> None:
        functions = [
            f"local function script_{i}(KEYS, ARGV)\n{_text(s.script)}\nend"
            for i, s in enumerate(scripts, 1)
        ]
        names = ", ".join(f"script_{i}" for i in range(1, len(scripts) + 1))
        source = "\n".join([*functions, f"local SCRIPTS = {{{names}}}", _DRIVER])
        self.script = redis.register_script(source)
        self.kinds = {id(s): i for i, s in enumerate(scripts, 1)}

    def queue(self, pipe: Any, writes: list[ScriptWrite]) -> None:
        """Queue the one call for ``writes`` (the script must be loaded); its reply is a
        list: each write's reply or error, in order."""
        args: list[Any] = [len(writes)]
        for write in writes:
            args += [self.kinds[id(write.script)], len(write.keys), len(write.args)]
        for write in writes:
            args += write.args
        all_keys = [key for write in writes for key in write.keys]
        pipe.execute_command("EVALSHA", self.script.sha, len(all_keys), *all_keys, *args)


def _text(source: str | bytes | memoryview) -> str:
    return source if isinstance(source, str) else bytes(source).decode()
