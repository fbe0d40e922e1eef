"""What every conformance suite shares: the service under test, made and closed per test."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Generic, Protocol, TypeVar

import pytest


class _Closable(Protocol):
    async def close(self) -> None: ...


S = TypeVar("S", bound=_Closable)


class ServiceUnderTest(Generic[S]):
    """The ``service`` fixture: a service from :meth:`make_service`, closed afterwards."""

    async def make_service(self) -> S:
        """A new service on an empty (or shared) store."""
        raise NotImplementedError

    @pytest.fixture
    async def service(self) -> AsyncIterator[S]:
        svc = await self.make_service()
        try:
            yield svc
        finally:
            await svc.close()
