"""The embedded server's users: generated once into its data folder.

The embedded Valkey listens on 127.0.0.1, where every local user could otherwise read
every account's password hash, every view and the live seeds. So it starts with an
ACL file (``<data>/users.acl``, mode 0600) in which the default user is off and one
operator user, ``orrery-admin``, may do everything; its password is random (256 bits)
and kept beside it in ``<data>/credentials.json`` (mode 0600; the ACL file holds only
its SHA-256). Every ``orrery`` command using that folder reads it, and the processes
``orrery serve`` starts (the service's roles) get the URL with it in their environment,
never on a command line. What is printed or recorded (``server.json``, ``orrery
status``) names the user but never the password.

Deployments with a user per role use ``deploy/valkey/users.acl.template`` instead.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import secrets
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote, unquote, urlsplit

ACL_FILE = "users.acl"
CREDENTIALS_FILE = "credentials.json"
OPERATOR = "orrery-admin"


@dataclass(frozen=True)
class Credentials:
    username: str
    password: str

    def userinfo(self) -> str:
        return f"{quote(self.username, safe='')}:{quote(self.password, safe='')}"

    def url(self, host: str, port: int) -> str:
        return f"redis://{self.userinfo()}@{host}:{port}/0"


def _write_private(path: Path, text: str) -> None:
    """Write ``text`` to a new file only its owner may read (then move it in place)."""
    tmp = path.with_name(path.name + f".tmp.{os.getpid()}")
    with contextlib.suppress(FileNotFoundError):
        tmp.unlink()
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(text)
    os.replace(tmp, path)


def acl_text(credentials: Credentials) -> str:
    """The ACL file. The default user is off (nobody can be it), yet keeps every right:
    Valkey replays the AOF as the default user and checks a transaction's commands
    again at its EXEC, so a default user without rights would drop every MULTI/EXEC
    (every script's effects) when the server restarts."""
    digest = hashlib.sha256(credentials.password.encode()).hexdigest()
    return f"user default off ~* &* +@all\nuser {credentials.username} on #{digest} ~* &* +@all\n"


def load_credentials(data_dir: Path) -> Credentials | None:
    try:
        doc = json.loads((data_dir / CREDENTIALS_FILE).read_text())
    except (FileNotFoundError, json.JSONDecodeError):
        return None
    return Credentials(str(doc["username"]), str(doc["password"]))


def ensure_users(data_dir: Path) -> tuple[Credentials, Path]:
    """The folder's operator credentials and ACL file, made on first use (both 0600;
    a folder from before gets them at its next start, its data untouched)."""
    data_dir.mkdir(parents=True, exist_ok=True)
    credentials = load_credentials(data_dir)
    if credentials is None:
        credentials = Credentials(OPERATOR, secrets.token_urlsafe(32))
        doc = {"username": credentials.username, "password": credentials.password}
        _write_private(data_dir / CREDENTIALS_FILE, json.dumps(doc) + "\n")
    acl = data_dir / ACL_FILE
    _write_private(acl, acl_text(credentials))
    return credentials, acl


def shown_url(url: str) -> str:
    """The URL as it may be printed or recorded: the user kept, any password dropped."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.rpartition("@")[2]
    user = quote(unquote(parts.username or ""), safe="")
    return parts._replace(netloc=f"{user}@{netloc}" if user else netloc).geturl()


def with_folder_password(url: str, data_dir: Path) -> str:
    """``url`` with the folder's operator password when it names the folder's user
    without one (the URL ``orrery serve`` printed, passed back to another command)."""
    parts = urlsplit(url)
    credentials = load_credentials(data_dir)
    if parts.password is not None or credentials is None:
        return url
    if unquote(parts.username or "") != credentials.username:
        return url
    host = parts.netloc.rpartition("@")[2]
    return parts._replace(netloc=f"{credentials.userinfo()}@{host}").geturl()
