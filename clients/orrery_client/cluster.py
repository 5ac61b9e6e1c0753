"""Redis Cluster client details shared by the SDK and the service's processes.

redis-py's cluster client routes a command by its keys; for a command whose keys move
with its arguments (``XREAD``, ``XREADGROUP``: the keys follow ``STREAMS``) it asks the
server, with a ``COMMAND GETKEYS`` round trip to one node, before every such command.
Every blocking read of a stream (each partition's reader in a worker or projector,
every ``watch`` of the SDK) then costs two round trips, and all those look-ups queue on
one node's connection pool. :func:`read_stream_keys_locally` makes the client find
those keys itself; every other command is routed as before.
"""

from __future__ import annotations

from typing import Any

_STREAM_READS = {"XREAD": 1, "XREADGROUP": 4}  # the first argument that may be STREAMS


def stream_read_keys(args: tuple[Any, ...]) -> list[Any] | None:
    """The keys of an ``XREAD``/``XREADGROUP`` command (``args[0]`` is its name), or
    None for any other command or one whose arguments cannot be read."""
    if not args:
        return None
    name = args[0].decode() if isinstance(args[0], bytes) else str(args[0])
    first = _STREAM_READS.get(name.upper())
    if first is None:
        return None
    # XREADGROUP GROUP <group> <consumer> ...: the group and consumer are names that
    # could read "STREAMS"; the options after them (COUNT n, BLOCK ms, NOACK) cannot.
    for index in range(first, len(args)):
        word = args[index]
        text = word.decode(errors="replace") if isinstance(word, bytes) else str(word)
        if text.upper() == "STREAMS":
            rest = args[index + 1 :]
            if not rest or len(rest) % 2:
                return None
            return list(rest[: len(rest) // 2])
    return None


def read_stream_keys_locally(client: Any) -> Any:
    """Let a ``redis.asyncio.cluster.RedisCluster`` find the keys of its stream reads
    without asking the server (other clients are returned untouched)."""
    parser = getattr(client, "commands_parser", None)
    if parser is None or getattr(parser, "_orrery_local_stream_keys", False):
        return client
    ask_server = parser.get_keys

    async def get_keys(*args: Any) -> Any:
        keys = stream_read_keys(args)
        return keys if keys is not None else await ask_server(*args)

    parser.get_keys = get_keys
    parser._orrery_local_stream_keys = True
    return client
