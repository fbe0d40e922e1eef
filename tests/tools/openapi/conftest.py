"""Fixtures of the OpenAPI tool tests: the petstore API served by uvicorn on 127.0.0.1
(as in tests/server) and its OpenAPI spec, pointed at that server."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
for folder in (HERE, HERE.parents[1] / "server"):  # petstore_app, server_support
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

from petstore_app import Petstore, make_app  # noqa: E402
from server_support import LiveServer  # noqa: E402

SPEC_TEMPLATE = (HERE / "petstore.yaml").read_text()


def oauth_code_scheme(oauth_url: str, scope: str, meaning: str) -> dict:
    """An OpenAPI OAuth2 authorization-code scheme on the test OAuth2 server."""
    return {
        "type": "oauth2",
        "flows": {
            "authorizationCode": {
                "authorizationUrl": f"{oauth_url}/authorize",
                "tokenUrl": f"{oauth_url}/token",
                "scopes": {scope: meaning},
            }
        },
    }


@dataclass
class LivePetstore:
    store: Petstore
    url: str
    spec_yaml: str

    @property
    def seen(self):
        return self.store.seen

    def spec_dict(self) -> dict:
        import yaml

        return yaml.safe_load(self.spec_yaml)


@pytest.fixture
def petstore() -> Iterator[LivePetstore]:
    """The petstore on a live local server; its spec's server URL points at it."""
    store = make_app()
    with LiveServer(store.app) as live:
        spec = SPEC_TEMPLATE.replace('default: "9"', f'default: "{live.port}"')
        yield LivePetstore(store=store, url=f"{live.url}/v1", spec_yaml=spec)
