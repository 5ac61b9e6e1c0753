"""E-mail: where it goes (``ORRERY_SMTP_URL``), what the messages say, and sending one.

The URL says how to reach the mail server: ``smtp://host:port`` sends in plain text and
is taken only for a loopback host (a relay on the same machine); ``smtp+starttls://`` and
``smtps://`` (TLS from the first byte) may carry a user and password, which then never
travel unencrypted. Every message about tables has a one-click unsubscribe link in its
text and in its headers (RFC 8058: ``List-Unsubscribe`` and ``List-Unsubscribe-Post``), and
a ``Message-ID`` made from what it reports, so a repeat is recognisable as one.
"""

from __future__ import annotations

import hashlib
import ipaddress
from dataclasses import dataclass
from email.message import EmailMessage
from email.utils import formatdate
from urllib.parse import quote, unquote, urlsplit

import aiosmtplib

from notify.models import WaitingTable


@dataclass(frozen=True)
class ReadyTable:
    """A tournament table the player was seated at (round ``round`` of
    ``tournament_id``)."""

    table_id: str
    game: str
    tournament_id: str
    round: int


SCHEMES = {"smtp": 25, "smtp+starttls": 587, "smtps": 465}


class BadSmtpUrl(ValueError):
    pass


@dataclass(frozen=True)
class SmtpTarget:
    host: str
    port: int
    tls: bool  # TLS from the start (smtps)
    starttls: bool
    user: str | None
    password: str | None


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def parse_smtp_url(url: str) -> SmtpTarget:
    """The mail server of ``url`` (a plain ``smtp://`` one on loopback only)."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise BadSmtpUrl("not a URL") from None
    if parts.scheme not in SCHEMES or not parts.hostname:
        raise BadSmtpUrl("smtp://, smtp+starttls:// or smtps://host[:port]")
    host = parts.hostname
    if parts.scheme == "smtp" and not _loopback(host):
        raise BadSmtpUrl("plain smtp:// only to a loopback host: use smtp+starttls or smtps")
    if parts.scheme == "smtp" and parts.username:
        raise BadSmtpUrl("a password never goes over plain smtp://")
    return SmtpTarget(
        host=host,
        port=port or SCHEMES[parts.scheme],
        tls=parts.scheme == "smtps",
        starttls=parts.scheme == "smtp+starttls",
        user=unquote(parts.username) if parts.username else None,
        password=unquote(parts.password) if parts.password else None,
    )


async def send(target: SmtpTarget, message: EmailMessage, timeout: float = 30.0) -> None:
    await aiosmtplib.send(
        message,
        hostname=target.host,
        port=target.port,
        use_tls=target.tls,
        start_tls=target.starttls,
        username=target.user,
        password=target.password,
        timeout=timeout,
    )


def _message(sender: str, to: str, subject: str, text: str, ident: str) -> EmailMessage:
    message = EmailMessage()
    message["From"] = sender
    message["To"] = to
    message["Subject"] = subject
    message["Date"] = formatdate(localtime=False)
    message["Message-ID"] = f"<{hashlib.sha256(ident.encode()).hexdigest()[:40]}@orrery>"
    message["Auto-Submitted"] = "auto-generated"
    message.set_content(text)
    return message


def verification(sender: str, to: str, link: str) -> EmailMessage:
    text = (
        "Someone (you, we hope) asked Orrery to tell this address when a game waits "
        "for them.\n\nTo confirm, open:\n\n"
        f"{link}\n\nIf it was not you, ignore this message: nothing is sent to an "
        "address until it is confirmed.\n"
    )
    return _message(sender, to, "Confirm your address for Orrery", text, link)


def table_link(public_url: str, table_id: str) -> str:
    return f"{public_url}/#/table/{quote(table_id, safe='')}"


def turns(
    sender: str,
    to: str,
    tables: list[WaitingTable],
    games: dict[str, str],
    public_url: str,
    unsubscribe: str,
    ident: str,
    ready: list[ReadyTable] | None = None,
) -> EmailMessage:
    """ "Your turn" for one table, or a digest of several; with ``ready``, "your
    tournament table is ready" for each tournament table paired (one table that is both
    is told once)."""
    ready = ready or []
    title = {t.table_id: games.get(t.game, t.game) for t in tables}
    title |= {r.table_id: games.get(r.game, r.game) for r in ready}
    seated = {r.table_id for r in ready}
    count = len(title)
    lines = [
        f"- {title[r.table_id]}, tournament {r.tournament_id} round {r.round}, "
        f"table {r.table_id}: {table_link(public_url, r.table_id)}"
        for r in ready
    ]
    waiting = [
        f"- {title[t.table_id]}, table {t.table_id}: {table_link(public_url, t.table_id)}"
        for t in tables
        if t.table_id not in seated
    ]
    if ready and count == 1:
        subject = f"Your tournament table is ready: {title[ready[0].table_id]}"
        head = "Your tournament table is ready:\n\n" + "\n".join(lines)
    elif ready:
        subject = f"{count} tables wait for you"
        head = "Your tournament tables are ready:\n\n" + "\n".join(lines)
        if waiting:
            head += "\n\nTables that wait for your move:\n\n" + "\n".join(waiting)
    elif count == 1:
        subject = f"Your turn: {title[tables[0].table_id]}"
        head = "A table waits for your move:\n\n" + "\n".join(waiting)
    else:
        subject = f"{count} tables wait for your move"
        head = f"{count} tables wait for your move:\n\n" + "\n".join(waiting)
    text = f"{head}\n\nTo stop these e-mails, open:\n{unsubscribe}\n"
    message = _message(sender, to, subject, text, ident)
    message["List-Unsubscribe"] = f"<{unsubscribe}>"
    message["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    return message
