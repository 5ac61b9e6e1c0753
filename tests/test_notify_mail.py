"""Where e-mail goes (``ORRERY_SMTP_URL``) and how it gets there, against real mail servers
on loopback (aiosmtpd) with a certificate made here: ``smtp+starttls://`` upgrades
before it logs in, ``smtps://`` speaks TLS from the first byte, the user and password
(percent-encoded in the URL) are the ones the server checks, a wrong password sends
nothing, a server whose certificate the system does not trust is refused; and the URLs
refused before anything is sent (plain ``smtp://`` beyond loopback, or with a password).
Also the VAPID key made in the data folder at first start and kept."""

from __future__ import annotations

import datetime as dt
import email
import email.policy
import ipaddress
import os
import ssl
import stat
from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import aiosmtplib
import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from notify.mail import BadSmtpUrl, parse_smtp_url, send, verification
from notify.settings import VAPID_KEY_ENV
from notify.vapid import KEY_FILE, load_private_key, public_key
from orrery.server.embedded import free_port

pytestmark = [
    pytest.mark.service,
    # the smtps server speaks TLS from the first byte, which aiosmtpd cannot tell
    pytest.mark.filterwarnings("ignore:Requiring AUTH while not requiring TLS"),
]

USER = "mailer@example.org"
PASSWORD = "p@ss:w/rd"  # every character a URL must escape
QUOTED = "p%40ss%3Aw%2Frd"


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A self-signed certificate for localhost: (certificate, key) files."""
    folder = tmp_path_factory.mktemp("tls")
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = dt.datetime.now(dt.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(hours=1))
        .not_valid_after(now + dt.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
            ),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_file, key_file = folder / "cert.pem", folder / "key.pem"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_file, key_file


class Server:
    """A mail server that takes mail only from USER with PASSWORD, over TLS."""

    def __init__(self, context: ssl.SSLContext, implicit: bool) -> None:
        self.port = free_port()
        self.received: list[EmailMessage] = []
        self.logins: list[tuple[str, bool]] = []  # (login, over TLS)
        # (a server in TLS from the first byte does not know it is: it is told so)
        tls: dict[str, Any] = (
            {"ssl_context": context, "auth_require_tls": False}
            if implicit
            else {"tls_context": context, "require_starttls": True}
        )
        self.controller = Controller(
            self,
            hostname="127.0.0.1",
            port=self.port,
            server_hostname="localhost",
            authenticator=self.authenticate,
            auth_required=True,
            **tls,
        )

    def authenticate(
        self, server: Any, _session: Any, _envelope: Any, _mechanism: str, data: Any
    ) -> AuthResult:
        assert isinstance(data, LoginPassword)
        login = data.login.decode()
        self.logins.append((login, server.transport.get_extra_info("ssl_object") is not None))
        return AuthResult(
            success=login == USER and data.password.decode() == PASSWORD, handled=False
        )

    async def handle_DATA(self, _server: Any, _session: Any, envelope: Any) -> str:
        message = email.message_from_bytes(envelope.content, policy=email.policy.default)
        assert isinstance(message, EmailMessage)
        self.received.append(message)
        return "250 OK"


@pytest.fixture
def trusted(certificate: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> ssl.SSLContext:
    """The server's TLS context; its certificate trusted as a system's CA would be."""
    monkeypatch.setenv("SSL_CERT_FILE", str(certificate[0]))
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(*map(str, certificate))
    return context


@pytest.fixture(params=["smtp+starttls", "smtps"])
def server(request: pytest.FixtureRequest, trusted: ssl.SSLContext) -> Iterator[Server]:
    started = Server(trusted, implicit=request.param == "smtps")
    started.controller.start()
    started.scheme = request.param  # type: ignore[attr-defined]
    try:
        yield started
    finally:
        started.controller.stop()


def _message() -> EmailMessage:
    return verification("Orrery <orrery@localhost>", "ann@example.org", "http://x/verify")


async def test_mail_goes_over_tls_with_the_urls_user_and_password(server: Server) -> None:
    scheme = server.scheme  # type: ignore[attr-defined]
    quoted_user = USER.replace("@", "%40")
    target = parse_smtp_url(f"{scheme}://{quoted_user}:{QUOTED}@localhost:{server.port}")
    assert (target.user, target.password) == (USER, PASSWORD)
    await send(target, _message())
    (received,) = server.received
    assert received["To"] == "ann@example.org"
    assert received["Subject"] == "Confirm your address for Orrery"
    assert server.logins == [(USER, True)]  # logged in once TLS was up


async def test_a_wrong_password_sends_nothing(server: Server) -> None:
    scheme = server.scheme  # type: ignore[attr-defined]
    target = parse_smtp_url(f"{scheme}://mailer%40example.org:wrong@localhost:{server.port}")
    with pytest.raises(aiosmtplib.SMTPException):
        await send(target, _message())
    assert server.received == []


async def test_a_certificate_nobody_trusts_is_refused(
    server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SSL_CERT_FILE")
    scheme = server.scheme  # type: ignore[attr-defined]
    target = parse_smtp_url(f"{scheme}://mailer%40example.org:{QUOTED}@localhost:{server.port}")
    with pytest.raises((aiosmtplib.SMTPException, ssl.SSLError)):
        await send(target, _message())
    assert server.received == [] and server.logins == []


def test_the_urls_taken_and_refused() -> None:
    plain = parse_smtp_url("smtp://127.0.0.1:2525")
    assert (plain.host, plain.port, plain.tls, plain.starttls) == ("127.0.0.1", 2525, False, False)
    assert parse_smtp_url("smtp://localhost").port == 25
    assert parse_smtp_url("smtp://[::1]:25").host == "::1"
    assert parse_smtp_url("smtp+starttls://mail.example.org").port == 587
    assert parse_smtp_url("smtps://mail.example.org").port == 465
    for refused in (
        "smtp://mail.example.org:25",  # plain text beyond this machine
        "smtp://10.0.0.1:25",
        "smtp://user:secret@127.0.0.1:25",  # a password in plain text
        "http://mail.example.org",
        "smtps://",
        "smtp://127.0.0.1:notaport",
    ):
        with pytest.raises(BadSmtpUrl):
            parse_smtp_url(refused)


def test_the_vapid_key_is_made_in_the_data_folder_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(VAPID_KEY_ENV, raising=False)
    made = load_private_key(tmp_path)
    kept = tmp_path / KEY_FILE
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    assert load_private_key(tmp_path) == made  # the next start keeps it
    assert len(public_key(made)) == 87  # a P-256 point, uncompressed, base64url
    monkeypatch.setenv(VAPID_KEY_ENV, "from-the-environment")
    assert load_private_key(tmp_path) == "from-the-environment"
    assert os.listdir(tmp_path) == [KEY_FILE]
