"""Artifacts: versioned files saved by agents and tools, and the services that store them."""

from pyadk.artifacts.base_artifact_service import BaseArtifactService
from pyadk.artifacts.file_artifact_service import FileArtifactService
from pyadk.artifacts.in_memory_artifact_service import InMemoryArtifactService

__all__ = ["BaseArtifactService", "FileArtifactService", "InMemoryArtifactService"]
