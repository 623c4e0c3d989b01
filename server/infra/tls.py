"""A local certificate for `celltrace serve --https` (Office add-ins need HTTPS even on localhost).

Like mkcert: a local certificate authority (`ca.pem`, trusted once by the user) signs a server
certificate for `localhost`, `127.0.0.1` and `::1` (`localhost.pem`). Both are created on first use
and reused afterwards; the server certificate is renewed when it nears expiry, the authority only
when it is missing or expired (then it must be trusted again). Private keys are written 0600.
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import os
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

DEFAULT_DIR = Path.home() / ".celltrace" / "tls"
HOSTS = ("localhost",)
IPS = ("127.0.0.1", "::1")
CA_DAYS = 3650
SERVER_DAYS = 397
"""Under the 398 days Apple and browsers accept for a server certificate."""
RENEW_DAYS = 30


@dataclass(frozen=True)
class LocalCertificate:
    ca: Path
    cert: Path
    key: Path
    created: bool
    """True when the authority was (re)created and must be trusted (again)."""


def _name(common_name: str) -> x509.Name:
    return x509.Name(
        [
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, "celltrace (local)"),
            x509.NameAttribute(NameOID.COMMON_NAME, common_name),
        ]
    )


def _write_key(path: Path, key: ec.EllipticCurvePrivateKey) -> None:
    pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(pem)


def _valid_until(path: Path, margin_days: int, now: dt.datetime) -> x509.Certificate | None:
    """The certificate at `path` when it is still valid `margin_days` from `now`, else None."""
    try:
        cert = x509.load_pem_x509_certificate(path.read_bytes())
    except (OSError, ValueError):
        return None
    return cert if cert.not_valid_after_utc > now + dt.timedelta(days=margin_days) else None


def _new_ca(directory: Path, now: dt.datetime) -> tuple[x509.Certificate, ec.EllipticCurvePrivateKey]:
    key = ec.generate_private_key(ec.SECP256R1())
    name = _name("celltrace local CA")
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=CA_DAYS))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                key_cert_sign=True,
                crl_sign=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .sign(key, hashes.SHA256())
    )
    _write_key(directory / "ca-key.pem", key)
    (directory / "ca.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    return cert, key


def _new_server_cert(
    directory: Path, ca: x509.Certificate, ca_key: ec.EllipticCurvePrivateKey, now: dt.datetime
) -> None:
    key = ec.generate_private_key(ec.SECP256R1())
    names: list[x509.GeneralName] = [x509.DNSName(h) for h in HOSTS]
    names += [x509.IPAddress(ipaddress.ip_address(ip)) for ip in IPS]
    cert = (
        x509.CertificateBuilder()
        .subject_name(_name("localhost"))
        .issuer_name(ca.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=SERVER_DAYS))
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.SubjectAlternativeName(names), critical=False)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False
        )
        .sign(ca_key, hashes.SHA256())
    )
    _write_key(directory / "localhost-key.pem", key)
    (directory / "localhost.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))


def ensure_certificate(directory: Path = DEFAULT_DIR, now: dt.datetime | None = None) -> LocalCertificate:
    """Create or reuse the local authority and the localhost certificate in `directory`."""
    now = now or dt.datetime.now(dt.UTC)
    directory.mkdir(parents=True, exist_ok=True, mode=0o700)
    ca = _valid_until(directory / "ca.pem", 0, now)
    created = ca is None
    if ca is None:
        ca, ca_key = _new_ca(directory, now)
    else:
        loaded = serialization.load_pem_private_key((directory / "ca-key.pem").read_bytes(), None)
        assert isinstance(loaded, ec.EllipticCurvePrivateKey)
        ca_key = loaded
    cert, key = directory / "localhost.pem", directory / "localhost-key.pem"
    server = _valid_until(cert, RENEW_DAYS, now)
    if created or server is None or server.issuer != ca.subject or not key.exists():
        _new_server_cert(directory, ca, ca_key, now)
    return LocalCertificate(directory / "ca.pem", cert, key, created)


def trust_instructions(ca: Path) -> list[str]:
    """How to trust the local authority once, per system (Office's web views use the system store)."""
    return [
        f"Trust the celltrace local CA once ({ca}):",
        f'  Windows: certutil -user -addstore Root "{ca}"',
        f'  macOS:   security add-trusted-cert -r trustRoot -k ~/Library/Keychains/login.keychain-db "{ca}"',
        f'  Linux:   sudo cp "{ca}" /usr/local/share/ca-certificates/celltrace.crt'
        " && sudo update-ca-certificates",
        "Then restart Excel (and the browser, for Excel on the web).",
    ]
