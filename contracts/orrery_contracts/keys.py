"""Redis key names and the partition function: the part of the wire contract that says
*where* things are.

Every key of a table carries its partition's hash tag ``{p}``, so one Lua script can
touch them all atomically and the same keys work unchanged on a Redis Cluster.
``P`` (the partition count) is stored in ``orrery:config`` and fixed for the life of
the data; clients read it there before computing a partition.
"""

from __future__ import annotations

import zlib

CONFIG_KEY = "orrery:config"
DEFAULT_PARTITIONS = 16

DECIDERS_GROUP = "deciders"
# The projections that keep an applied-seq key per table (``projection_seq_key``).
VIEWS_GROUP = "views"
SCOREBOARD_GROUP = "scoreboard"
PROJECTIONS = (VIEWS_GROUP, SCOREBOARD_GROUP)
# The feed's consumer group: one for every projection (each feed entry is read once and
# each table folded once per batch). Until 2026-12 each projection had its own group
# (``LEGACY_PROJECTION_GROUPS``); ``projections.runner.ensure_feed_groups`` migrates them.
PROJECTIONS_GROUP = "projections"
PROJECTION_GROUPS = (PROJECTIONS_GROUP,)
LEGACY_PROJECTION_GROUPS = (VIEWS_GROUP, SCOREBOARD_GROUP)


def partition_of(table_id: str, partitions: int) -> int:
    return zlib.crc32(table_id.encode()) % partitions


def hash_tag(key: str) -> str | None:
    """The key's hash tag as Redis Cluster reads it (what its first ``{…}`` holds, if not
    empty), or None: keys with the same tag share a slot."""
    start = key.find("{")
    end = key.find("}", start + 1) if start >= 0 else -1
    return key[start + 1 : end] if end > start + 1 else None


def command_stream(p: int) -> str:
    return f"orrery:{{{p}}}:cmd"


def feed_stream(p: int) -> str:
    return f"orrery:{{{p}}}:feed"


def dead_letter_stream(p: int) -> str:
    return f"orrery:{{{p}}}:dead"


def tables_set(p: int) -> str:
    """Every table id of the partition (the index rebuilds walk)."""
    return f"orrery:{{{p}}}:tables"


def ended_zset(p: int) -> str:
    """The partition's tables that finished or closed and are not archived yet: member
    the table id, score its end time (unix ms). The append that ends a table adds it;
    the archiver removes it last, once the table is in the archive and out of Redis."""
    return f"orrery:{{{p}}}:ended"


def _table(p: int, table_id: str, suffix: str) -> str:
    return f"orrery:{{{p}}}:t:{table_id}:{suffix}"


def log_stream(p: int, table_id: str) -> str:
    return _table(p, table_id, "log")


def meta_hash(p: int, table_id: str) -> str:
    return _table(p, table_id, "meta")


def outcomes_hash(p: int, table_id: str) -> str:
    return _table(p, table_id, "out")


def snapshot_key(p: int, table_id: str) -> str:
    return _table(p, table_id, "snap")


def secret_key(p: int, table_id: str) -> str:
    """The table's random seed, until the last event reveals it."""
    return _table(p, table_id, "seed")


def view_key(p: int, table_id: str, seat: int | None) -> str:
    return _table(p, table_id, "view:spectator" if seat is None else f"view:{seat}")


def updates_stream(p: int, table_id: str) -> str:
    """One entry per applied batch of events; clients XREAD BLOCK here for view updates."""
    return _table(p, table_id, "updates")


def views_written_key(p: int) -> str:
    """How many times the partition's views were written (projections/views.lua): kept
    out of the AOF like the views, so a count lower than a projector saw tells it the
    views went back to an older moment (projections/reverts.py)."""
    return f"orrery:{{{p}}}:views:written"


def score_key(p: int, table_id: str) -> str:
    return _table(p, table_id, "score")


def tombstone_key(p: int, table_id: str) -> str:
    """What stays in Redis of an archived table (a small hash: ``head`` hash, ``finished``
    and ``archived`` times): commands to it are answered ``game_over`` and readers look
    in the archive."""
    return _table(p, table_id, "archived")


def archiving_key(p: int, table_id: str) -> str:
    """The lease of the archiver that is moving the table (its name, a short expiry)."""
    return _table(p, table_id, "archiving")


def projection_seq_key(p: int, table_id: str, projection: str) -> str:
    return _table(p, table_id, f"applied:{projection}")


FINISHED_TABLES = "orrery:{lb}:finished"


def leaderboard_key(game: str) -> str:
    return f"orrery:{{lb}}:rating:{game}"


def ratings_key(game: str) -> str:
    return f"orrery:{{lb}}:ratings:{game}"


def notice_stream(p: int, table_id: str, seat: int) -> str:
    """ "Your turn" notices for one seat of a table (projected; one entry each time the
    seat becomes one to move)."""
    return _table(p, table_id, f"notice:{seat}")


def player_notice_stream(player_id: str) -> str:
    """ "Your turn" notices of every table where a verified player holds a seat (the
    gateway pushes them on ``WS /v1/players/me/live``)."""
    return f"orrery:notice:{player_id}"


# ---------------------------------------------------------------- clocks (projected)

NOTICES = "notices"  # the applied-seq name of the deadlines + notices projection
# Hash: each running timekeeper's name → when it last polled (unix ms).
TIMEKEEPERS = "orrery:timekeepers"


def deadlines_zset(p: int) -> str:
    """Due times of the partition's running clocks and lobby closes (unix ms scores):
    member ``<table>|<seat>|<turn>`` or ``<table>|close``; the timekeeper polls it."""
    return f"orrery:{{{p}}}:deadlines"


def expiry_member(table_id: str, seat: int, turn: int) -> str:
    return f"{table_id}|{seat}|{turn}"


def close_member(table_id: str) -> str:
    return f"{table_id}|close"


def parse_deadline_member(member: str) -> tuple[str, int | None, int]:
    """``(table_id, seat, turn)`` of an expiry member, ``(table_id, None, 0)`` of a close;
    ValueError for anything else."""
    parts = member.split("|")
    if len(parts) == 2 and parts[1] == "close" and parts[0]:
        return parts[0], None, 0
    if len(parts) == 3 and parts[0]:
        return parts[0], int(parts[1]), int(parts[2])
    raise ValueError(f"not a deadlines member: {member[:80]!r}")


def table_deadlines_key(p: int, table_id: str) -> str:
    """The table's current members of :func:`deadlines_zset` (space-separated)."""
    return _table(p, table_id, "deadlines")


def notified_hash(p: int, table_id: str) -> str:
    """Seat → the last turn (seq) a "your turn" notice was written for."""
    return _table(p, table_id, "notified")


# ---------------------------------------------------------------- table chat (not game state)


def chat_stream(p: int, table_id: str) -> str:
    """The table's chat: a stream capped at ``chat.CHAT_CAP`` entries (field ``__data__``:
    a message as JSON, or an operator's deletion). The one chat key that lasts: the
    key a finished table's chat moves from (``chat_keys``)."""
    return _table(p, table_id, "chat")


def chat_rate_key(p: int, table_id: str, author: str) -> str:
    """An author's message count in the current rate window (expires with it)."""
    return _table(p, table_id, f"chat:rate:{author}")


def chat_said_key(p: int, table_id: str, command_id: str) -> str:
    """A ``table.say`` command id → the message it posted (dedupe of retries; expires)."""
    return _table(p, table_id, f"chat:said:{command_id}")


def chat_keys(p: int, table_id: str) -> list[str]:
    """Every lasting chat key of a table (what an archiver moves with a finished table;
    the rate and dedupe keys expire on their own)."""
    return [chat_stream(p, table_id)]


# ---------------------------------------------------------------- matchmaking
# Every matchmaking key shares the hash tag {mm}: one script appends a decision to a
# game's log and updates what players read, atomically.


def queue_command_stream(game: str) -> str:
    """Ticket commands for ``game`` (queue.join, queue.leave, …; ``__data__``: JSON)."""
    return f"orrery:{{mm}}:cmd:{game}"


def queue_log(game: str) -> str:
    """The game's matchmaking log: entry id ``<seq>-0``, field ``e`` (msgpack)."""
    return f"orrery:{{mm}}:log:{game}"


def queue_meta(game: str) -> str:
    """The log's ``seq``, ``head`` hash and the last command entry decided (``cursor``)."""
    return f"orrery:{{mm}}:meta:{game}"


def queue_lease(game: str) -> str:
    """The lease of the matchmaker that owns the game's queue (its name, a short expiry)."""
    return f"orrery:{{mm}}:lease:{game}"


def ticket_key(ticket_id: str) -> str:
    return f"orrery:{{mm}}:ticket:{ticket_id}"


def player_tickets_key(player_id: str) -> str:
    """The player's tickets (theirs and those of parties they are in): ticket id scored
    by when it joined."""
    return f"orrery:{{mm}}:player:{player_id}"


def queue_answer_key(command_id: str) -> str:
    return f"orrery:{{mm}}:answer:{command_id}"


def online_key(player_id: str) -> str:
    """Set (with a short expiry, renewed) while the player has a live connection."""
    return f"orrery:{{mm}}:online:{player_id}"


def blocks_key(player_id: str) -> str:
    """The players a player blocked (a set the gateway keeps; the matchmakers learn it
    through queue.set_blocks commands and each ticket)."""
    return f"orrery:gw:blocks:{player_id}"


# ---------------------------------------------------------------- turn notifications
# What the notifiers (notify/) share with the projectors and the gateway. Two hash tags:
# ``{ntf}`` for the notifiers' own work (their input stream, schedule, dedupe, limits,
# preferences, activity), ``{pd}`` for personal data (e-mail addresses, push
# subscriptions), kept apart so that only the gateway and the notifiers may read it.

NOTIFY_STREAM = "orrery:{ntf}:notices"  # "your turn" of verified players, e-mail checks
NOTIFIERS_GROUP = "notifiers"
NOTIFY_DUE = "orrery:{ntf}:due"  # player → when their next delivery is due (unix ms)
NOTIFY_VAPID = "orrery:{ntf}:vapid"  # the notifiers' VAPID public key, for the gateway


def notify_waiting_key(player_id: str) -> str:
    """Table id → the newest "your turn" notice not yet delivered to the player."""
    return f"orrery:{{ntf}}:waiting:{player_id}"


def notify_sent_key(player_id: str, table_id: str, turn: int) -> str:
    """One delivery's state (``sending:<ms>`` then ``sent``), kept for the dedupe window."""
    return f"orrery:{{ntf}}:sent:{player_id}:{table_id}:{turn}"


def notify_rate_key(player_id: str) -> str:
    """When the player's recent messages were sent (the per-player rate limit)."""
    return f"orrery:{{ntf}}:rate:{player_id}"


def notify_prefs_key(player_id: str) -> str:
    return f"orrery:{{ntf}}:prefs:{player_id}"


def seen_key(player_id: str) -> str:
    """When the player last made a request or held a socket (unix ms; expires)."""
    return f"orrery:{{ntf}}:seen:{player_id}"


def live_key(player_id: str) -> str:
    """Set, with a short renewed expiry, while the player holds any live socket."""
    return f"orrery:{{ntf}}:live:{player_id}"


def email_key(player_id: str) -> str:
    """Personal data: the player's e-mail address and whether they confirmed it."""
    return f"orrery:{{pd}}:email:{player_id}"


def push_key(player_id: str) -> str:
    """Personal data: the player's Web Push subscriptions (endpoint hash → subscription)."""
    return f"orrery:{{pd}}:push:{player_id}"


# ---------------------------------------------------------------- tournaments
# Tournament keys share the matchmaking hash tag {mm}: the organiser runs in the
# matchmaker's process as its Redis user, and one script appends a tournament's decisions
# with its command cursor and what players read.


def tournament_command_stream() -> str:
    """Tournament commands from the front doors (tn.create, tn.register, …; JSON)."""
    return "orrery:{mm}:tn:cmd"


def tournament_log(tournament_id: str) -> str:
    """A tournament's hash-chained log (entry id ``<seq>-0``; never trimmed)."""
    return f"orrery:{{mm}}:tn:log:{tournament_id}"


def tournament_meta() -> str:
    """The organiser's hash: per tournament ``seq:<id>`` and ``head:<id>``, and the
    command stream's ``cursor``."""
    return "orrery:{mm}:tn:meta"


def tournament_lease() -> str:
    """The lease of the organiser that decides every tournament (its name, an expiry)."""
    return "orrery:{mm}:tn:lease"


def tournament_key(tournament_id: str) -> str:
    """What players read of one tournament (a TournamentView, JSON)."""
    return f"orrery:{{mm}}:tn:view:{tournament_id}"


def tournaments_index() -> str:
    """Every tournament id, scored by its creation time (unix ms)."""
    return "orrery:{mm}:tn:index"


def tournament_answer_key(command_id: str) -> str:
    return f"orrery:{{mm}}:tn:answer:{command_id}"


def season_key(game: str) -> str:
    """A game's arena season: its number, start, end, and each player's league (JSON)."""
    return f"orrery:{{mm}}:season:{game}"


def season_reset_key(game: str) -> str:
    """A game's soft resets (hash: season number -> ``pending`` | ``done``): the reset of
    the ratings that begins each season, applied once (beside the ratings, in their slot)."""
    return f"orrery:{{lb}}:season-reset:{game}"
