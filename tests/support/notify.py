"""Real servers for the notifier's tests, on loopback: an SMTP server (aiosmtpd) that
keeps every message it accepts, and a Web Push service (RFC 8030) that checks each
request's VAPID JWT (RFC 8292) against the notifiers' public key and decrypts its body
(RFC 8291, ``http_ece``) with the subscription's own private key, as a browser would."""

from __future__ import annotations

import base64
import email
import email.policy
import json
import os
import threading
import time
from dataclasses import dataclass, field
from email.message import EmailMessage
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import http_ece
import jwt
from aiosmtpd.controller import Controller
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from orrery.server.embedded import free_port


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class _Keep:
    def __init__(self, mailbox: Mailbox) -> None:
        self.mailbox = mailbox

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        if self.mailbox.hold_s:
            time.sleep(self.mailbox.hold_s)  # (a slow server: the sender waits mid-DATA)
        message = email.message_from_bytes(envelope.content, policy=email.policy.default)
        assert isinstance(message, EmailMessage)
        with self.mailbox.lock:
            self.mailbox.messages.append(message)
        return "250 OK"


@dataclass
class Mailbox:
    """What the loopback SMTP server accepted, oldest first."""

    messages: list[EmailMessage] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    hold_s: float = 0.0

    def to(self, address: str) -> list[EmailMessage]:
        with self.lock:
            return [m for m in self.messages if m["To"] == address]

    def wait_for(self, address: str, count: int = 1, timeout: float = 30.0) -> list[EmailMessage]:
        deadline = time.monotonic() + timeout
        while len(self.to(address)) < count:
            if time.monotonic() > deadline:
                raise AssertionError(f"{len(self.to(address))} messages, not {count}")
            time.sleep(0.05)
        return self.to(address)


class SmtpServer:
    def __init__(self) -> None:
        self.mailbox = Mailbox()
        self.port = free_port()
        self.controller = Controller(_Keep(self.mailbox), hostname="127.0.0.1", port=self.port)

    @property
    def url(self) -> str:
        return f"smtp://127.0.0.1:{self.port}"

    def __enter__(self) -> SmtpServer:
        self.controller.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.controller.stop()


@dataclass
class Subscription:
    """A browser's side of one push subscription: its keys, and what it received."""

    endpoint: str
    private: ec.EllipticCurvePrivateKey
    auth: bytes
    received: list[dict[str, Any]] = field(default_factory=list)

    def json(self) -> dict[str, Any]:
        point = self.private.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return {"endpoint": self.endpoint, "keys": {"p256dh": b64(point), "auth": b64(self.auth)}}


class PushService:
    """An RFC 8030 push service: ``POST /push/<id>``; 201 after the VAPID JWT checked
    out and the body decrypted, 410 once for an id in :attr:`gone`, 401/400 otherwise."""

    def __init__(self) -> None:
        self.port = free_port()
        self.subscriptions: dict[str, Subscription] = {}
        self.gone: set[str] = set()
        self.answered: list[tuple[str, int]] = []
        self.vapid_public: str | None = None  # the key every JWT must be signed with
        self.lock = threading.Lock()
        service = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                status = service.receive(self.path, dict(self.headers), body)
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

        self.server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def subscribe(self, name: str) -> Subscription:
        subscription = Subscription(
            f"{self.origin}/push/{name}", ec.generate_private_key(ec.SECP256R1()), os.urandom(16)
        )
        self.subscriptions[name] = subscription
        return subscription

    def receive(self, path: str, headers: dict[str, str], body: bytes) -> int:
        name = path.rsplit("/", 1)[-1]
        status = self._status(name, headers, body)
        with self.lock:
            self.answered.append((name, status))
        return status

    def _status(self, name: str, headers: dict[str, str], body: bytes) -> int:
        subscription = self.subscriptions.get(name)
        if subscription is None:
            return 404
        if name in self.gone:
            self.gone.discard(name)
            self.subscriptions.pop(name)
            return 410
        scheme, _, params = headers.get("Authorization", "").partition(" ")
        parts = dict(p.split("=", 1) for p in params.split(",") if "=" in p)
        if scheme != "vapid" or parts.get("k") != self.vapid_public:
            return 401
        public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64(parts["k"]))
        try:
            claims = jwt.decode(parts["t"], public, algorithms=["ES256"], audience=self.origin)
        except jwt.PyJWTError:
            return 401
        if not str(claims.get("sub", "")).startswith(("mailto:", "https:")):
            return 401
        if headers.get("Content-Encoding") != "aes128gcm" or not headers.get("TTL"):
            return 400
        payload = http_ece.decrypt(
            body, private_key=subscription.private, auth_secret=subscription.auth
        )
        with self.lock:
            subscription.received.append(json.loads(payload))
        return 201

    def __enter__(self) -> PushService:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
