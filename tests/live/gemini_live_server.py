"""A fake Gemini Live API server on 127.0.0.1 (WebSocket over TLS, the API's JSON).

google-genai opens ``wss://<base_url host>/ws/...BidiGenerateContent``: the server
answers the ``setup`` message with ``setupComplete``, records every client message, and
answers each message that asks for a turn (``clientContent`` with ``turnComplete``,
``toolResponse``, ``realtimeInput`` with ``activityEnd`` or ``audioStreamEnd``) with the
next scripted batch of server messages.
"""

from __future__ import annotations

import asyncio
import datetime
import ipaddress
import json
import ssl
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from websockets.asyncio.server import ServerConnection, serve

ServerMessage = dict[str, Any]


class FakeGeminiLive:
    """Scripted server; ``received`` holds every client message (parsed JSON)."""

    def __init__(
        self,
        turns: list[list[ServerMessage]] | None = None,
        *,
        refuse_setup: tuple[int, str] | None = None,
        close_after_turns: tuple[int, int, str] | None = None,
    ) -> None:
        self.turns = list(turns or [])
        self.refuse_setup = refuse_setup
        self.close_after_turns = close_after_turns
        self.received: list[ServerMessage] = []
        self.paths: list[str] = []
        self.played = 0
        self.port = 0
        self.client_ssl: ssl.SSLContext | None = None

    @property
    def base_url(self) -> str:
        return f"https://127.0.0.1:{self.port}"

    def setups(self) -> list[ServerMessage]:
        return [m["setup"] for m in self.received if "setup" in m]

    def sent(self, kind: str) -> list[ServerMessage]:
        """The client messages of one kind (``clientContent``, ``toolResponse``, ...)."""
        return [m[kind] for m in self.received if kind in m]

    async def _handle(self, ws: ServerConnection) -> None:
        self.paths.append(ws.request.path if ws.request else "")
        async for raw in ws:
            message = _camel(json.loads(raw))
            self.received.append(message)
            if "setup" in message:
                if self.refuse_setup is not None:
                    await ws.close(*self.refuse_setup)
                    return
                await ws.send(json.dumps({"setupComplete": {}}))
                continue
            if not _asks_for_turn(message):
                continue
            if self.close_after_turns is not None and self.played >= self.close_after_turns[0]:
                _, code, reason = self.close_after_turns
                await ws.close(code, reason)
                return
            batch = self.turns[self.played] if self.played < len(self.turns) else []
            self.played += 1
            for server_message in batch:
                await ws.send(json.dumps(server_message))
                await asyncio.sleep(0)


_USER_DATA = {"args", "response"}


def _camel(value: Any) -> Any:
    """Client JSON with camelCase keys (google-genai sends some snake_case ones, which
    the API accepts too); function arguments and responses are left as they are."""
    if isinstance(value, list):
        return [_camel(item) for item in value]
    if not isinstance(value, dict):
        return value
    out = {}
    for key, item in value.items():
        head, *rest = key.split("_")
        name = head + "".join(word.title() for word in rest)
        out[name] = item if name in _USER_DATA else _camel(item)
    return out


def _asks_for_turn(message: ServerMessage) -> bool:
    if "clientContent" in message:
        return bool(message["clientContent"].get("turnComplete"))
    if "toolResponse" in message:
        return True
    realtime = message.get("realtimeInput") or {}
    return "activityEnd" in realtime or bool(realtime.get("audioStreamEnd"))


@asynccontextmanager
async def fake_gemini_live(server: FakeGeminiLive) -> AsyncIterator[FakeGeminiLive]:
    """Serves ``server`` on a free port of 127.0.0.1 with a fresh self-signed
    certificate; ``server.client_ssl`` trusts it."""
    with tempfile.TemporaryDirectory() as folder:
        cert, key = _self_signed(Path(folder))
        server_ssl = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        server_ssl.load_cert_chain(cert, key)
        client_ssl = ssl.create_default_context(cafile=str(cert))
        async with serve(server._handle, "127.0.0.1", 0, ssl=server_ssl) as running:
            server.port = running.sockets[0].getsockname()[1]
            server.client_ssl = client_ssl
            yield server


def _self_signed(folder: Path) -> tuple[Path, Path]:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path = folder / "cert.pem"
    key_path = folder / "key.pem"
    cert_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_path, key_path
