"""The embedded server's users: generated once into its data folder.

The embedded Valkey listens on 127.0.0.1, where every local user could otherwise read
every account's password hash, every view and the live seeds. So it starts with an
ACL file (``<data>/users.acl``, mode 0600) rendered from the deployments' own rules
(``users.acl.template`` beside this module; ``deploy/valkey/users.acl.template`` is the
same file): the default user is off, one operator user, ``orrery-admin``, may do
everything, and each role of the service (:data:`ROLES`) has its own user with only the
keys and commands it needs (``orrery-worker``, ``orrery-projector``, …). Each password
is random (256 bits) and kept in ``<data>/credentials.json`` (mode 0600; the ACL file
holds only their SHA-256). Every ``orrery`` command using that folder reads the
operator's; ``orrery serve`` hands each process it starts the URL of its role's user in
its environment, never on a command line. What is printed or recorded
(``server.json``, ``orrery status``) names the user but never the password.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote, urlsplit

ACL_FILE = "users.acl"
CREDENTIALS_FILE = "credentials.json"
OPERATOR = "orrery-admin"
TEMPLATE = Path(__file__).with_name("users.acl.template")
# The service's roles, each run by ``orrery serve`` as its own user ``orrery-<role>``,
# whose rules are that user's line in the template. A new role: its name here, its line
# there.
ROLES = (
    "worker",
    "projector",
    "timekeeper",
    "archiver",
    "gateway",
    "bots",
    "matchmaker",
    "notifier",
)


def role_user(role: str) -> str:
    """The ACL user a role runs as."""
    return f"orrery-{role}"


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


def render_acl(template: str, passwords: Mapping[str, str]) -> str:
    """The template's ``user`` lines of the default user and of each user in
    ``passwords`` (name -> password), each password placeholder (``>${NAME}``) turned
    into the password's SHA-256 (``#<hex>``); comments and other users left out."""
    lines, rendered = [], set()
    for line in template.splitlines():
        words = line.split()
        if len(words) < 2 or words[0] != "user":
            continue
        name = words[1]
        if name == "default":
            lines.append(line)
        elif name in passwords:
            digest = hashlib.sha256(passwords[name].encode()).hexdigest()
            line, count = re.subn(r">\$\{[A-Z_]+\}", f"#{digest}", line)
            if count != 1:
                raise ValueError(f"the template's user {name} has no password placeholder")
            lines.append(line)
            rendered.add(name)
    missing = sorted(set(passwords) - rendered)
    if missing:
        raise ValueError(f"the template defines no user {', '.join(missing)}")
    return "".join(f"{line}\n" for line in lines)


def acl_text(operator: Credentials, roles: Mapping[str, Credentials] | None = None) -> str:
    """The ACL file: the template's default user, the operator and the roles' users.
    The default user is off (nobody can be it), yet keeps every right: Valkey replays
    the AOF as the default user and checks a transaction's commands again at its EXEC,
    so a default user without rights would drop every MULTI/EXEC (every script's
    effects) when the server restarts."""
    users = [operator, *(roles or {}).values()]
    return render_acl(TEMPLATE.read_text(), {c.username: c.password for c in users})


def _document(data_dir: Path) -> dict[str, Any] | None:
    try:
        doc = json.loads((data_dir / CREDENTIALS_FILE).read_text())
    except (FileNotFoundError, json.JSONDecodeError):
        return None
    return doc if isinstance(doc, dict) and "username" in doc and "password" in doc else None


def load_credentials(data_dir: Path) -> Credentials | None:
    """The folder's operator credentials (None before its server first started)."""
    doc = _document(data_dir)
    return None if doc is None else Credentials(str(doc["username"]), str(doc["password"]))


def load_role_credentials(data_dir: Path) -> dict[str, Credentials]:
    """Each role's credentials in the folder (none in a folder whose server has not
    started since roles had users)."""
    doc = _document(data_dir) or {}
    roles = doc.get("roles")
    if not isinstance(roles, dict):
        return {}
    return {
        role: Credentials(str(user["username"]), str(user["password"]))
        for role, user in roles.items()
        if isinstance(user, dict) and user.get("username") and user.get("password")
    }


def ensure_users(data_dir: Path) -> tuple[Credentials, Path]:
    """The folder's operator credentials and ACL file, made on first use (both 0600;
    a folder from before gets them, or the users of roles it lacks, at its next start,
    its data and its operator's password untouched)."""
    data_dir.mkdir(parents=True, exist_ok=True)
    operator = load_credentials(data_dir)
    roles = load_role_credentials(data_dir) if operator is not None else {}
    if operator is None or any(role not in roles for role in ROLES):
        operator = operator or Credentials(OPERATOR, secrets.token_urlsafe(32))
        for role in ROLES:
            roles.setdefault(role, Credentials(role_user(role), secrets.token_urlsafe(32)))
        doc = {
            "username": operator.username,
            "password": operator.password,
            "roles": {
                role: {"username": c.username, "password": c.password} for role, c in roles.items()
            },
        }
        _write_private(data_dir / CREDENTIALS_FILE, json.dumps(doc, indent=2) + "\n")
    acl = data_dir / ACL_FILE
    known = {role: c for role, c in roles.items() if role in ROLES}
    _write_private(acl, acl_text(operator, known))
    return operator, acl


def role_urls(url: str, data_dir: Path) -> dict[str, str]:
    """Each role's URL on the folder's server, when ``url`` is the folder's operator URL
    (its password included); else none (another server: every role uses ``url``)."""
    parts = urlsplit(url)
    operator = load_credentials(data_dir)
    if operator is None or parts.password is None:
        return {}
    if (unquote(parts.username or ""), unquote(parts.password)) != (
        operator.username,
        operator.password,
    ):
        return {}
    host = parts.netloc.rpartition("@")[2]
    return {
        role: parts._replace(netloc=f"{c.userinfo()}@{host}").geturl()
        for role, c in load_role_credentials(data_dir).items()
        if role in ROLES
    }


def shown_url(url: str) -> str:
    """The URL as it may be printed, logged or recorded: the user kept, any password
    dropped. The one form every message shows: without a password it is still a URL the
    user can pass back, and :func:`with_folder_password` fills the folder's in."""
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
