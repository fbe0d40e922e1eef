"""The module index (``adk_index.yaml``): pyadk's modules with one-line summaries."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from pydantic import BaseModel, Field

INDEX_PATH = Path(__file__).with_name("adk_index.yaml")


class IndexEntry(BaseModel):
    """One module of the index."""

    name: str
    summary: str


class ModuleIndex(BaseModel):
    """Modules the index-based selector may pick from, and the defaults when it picks none."""

    modules: list[IndexEntry]
    defaults: list[str] = Field(default_factory=list)

    def names(self) -> list[str]:
        """The module names, in index order."""
        return [m.name for m in self.modules]

    def as_text(self) -> str:
        """One ``- name: summary`` line per module (for a prompt)."""
        return "\n".join(f"- {m.name}: {m.summary}" for m in self.modules)

    def select(self, requested: Iterable[str], limit: int) -> list[str]:
        """The requested names that the index has, matched leniently, without duplicates.

        ``pyadk.agents.LoopAgent`` or ``loop_agent`` match ``pyadk.agents.loop_agent``.
        """
        chosen: list[str] = []
        for raw in requested:
            name = self.match(raw)
            if name is not None and name not in chosen:
                chosen.append(name)
            if len(chosen) >= limit:
                break
        return chosen

    def match(self, raw: str) -> str | None:
        """The index module ``raw`` names, or None."""
        text = raw.strip().strip("`'\" ").removesuffix(".py").replace("/", ".")
        names = self.names()
        if text in names:
            return text
        lowered = text.lower()
        for name in names:  # a class or function inside the module: pyadk.tools.exit_loop
            if lowered.startswith(name + "."):
                return name
        tail = lowered.rsplit(".", 1)[-1]
        for name in names:  # a bare module name, or a summary's class name
            if name.rsplit(".", 1)[-1] == tail:
                return name
        for entry in self.modules:
            if tail and entry.summary.lower().startswith(tail):
                return entry.name
        for name in names:  # a package: its first module in the index
            if name.startswith(text + "."):
                return name
        return None


def load_index(path: str | Path | None = None) -> ModuleIndex:
    """Reads ``adk_index.yaml`` (or ``path``); needs PyYAML (``pip install 'pyadk[bench]'``)."""
    try:
        import yaml
    except ImportError as error:  # pragma: no cover - depends on the environment
        raise ImportError(
            "The module index needs PyYAML: pip install 'pyadk[bench]' (or pyyaml)."
        ) from error
    data = yaml.safe_load(Path(path or INDEX_PATH).read_text(encoding="utf-8"))
    return ModuleIndex.model_validate(data)
