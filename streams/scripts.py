"""Lua scripts sent in pipelines, for every side that batches its script calls.

A script's calls go to the server as plain ``EVALSHA`` commands in a pipeline: redis-py's
cluster pipeline refuses its ``evalsha`` *method*, not the command, and routes the
command by its keys (so each node gets its own calls). A server that lost its scripts
(a restart without data, ``SCRIPT FLUSH``) refuses such a call with ``NOSCRIPT``: the
calls it refused are sent again once the scripts are loaded, the others keep their
replies. Every caller's scripts are safe to run again (guarded by a seq, or deduped by
a command id), which is what makes the resend harmless.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from redis.exceptions import NoScriptError


def queue_evalsha(pipe: Any, sha: str | None, keys: list[Any], args: list[Any]) -> None:
    """Queue one call of the script ``sha`` on ``pipe`` (the script must be loaded)."""
    pipe.execute_command("EVALSHA", sha, len(keys), *keys, *args)


async def resend_refused(
    replies: list[Any],
    load: Callable[[], Awaitable[None]],
    resend: Callable[[list[int]], Awaitable[list[Any]]],
) -> list[Any]:
    """``replies`` (one per call, errors as values) with each ``NOSCRIPT`` refusal
    replaced by the reply of its call sent again (``resend`` of their indexes, in order)
    after ``load`` loaded the scripts."""
    refused = [i for i, reply in enumerate(replies) if isinstance(reply, NoScriptError)]
    if not refused:
        return replies
    await load()
    again = await resend(refused)
    replies = list(replies)
    for i, reply in zip(refused, again, strict=True):
        replies[i] = reply
    return replies
