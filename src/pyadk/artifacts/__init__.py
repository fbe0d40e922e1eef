"""Artifacts: versioned files saved by agents and tools, and the services that store them."""

from typing import TYPE_CHECKING

from pyadk.artifacts.base_artifact_service import BaseArtifactService
from pyadk.artifacts.in_memory_artifact_service import InMemoryArtifactService
from pyadk.utils.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from pyadk.artifacts.file_artifact_service import FileArtifactService
    from pyadk.artifacts.sql_artifact_service import SqlArtifactService
    from pyadk.artifacts.uri import artifact_service_from_uri

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "FileArtifactService": ".file_artifact_service",
        "SqlArtifactService": ".sql_artifact_service",
        "artifact_service_from_uri": ".uri",
    },
    globals(),
)

__all__ = [
    "BaseArtifactService",
    "FileArtifactService",
    "InMemoryArtifactService",
    "SqlArtifactService",
    "artifact_service_from_uri",
]
