"""pyadk: an Agent Development Kit for Python, compatible with google-adk's API."""

from pyadk.version import __version__

__all__ = ["Agent", "Runner", "__version__"]


def __getattr__(name: str) -> object:
    # Lazy so that `import pyadk.types` stays cheap.
    if name == "Agent":
        from pyadk.agents.llm_agent import Agent

        return Agent
    if name == "Runner":
        from pyadk.runners import Runner

        return Runner
    raise AttributeError(f"module 'pyadk' has no attribute {name!r}")
