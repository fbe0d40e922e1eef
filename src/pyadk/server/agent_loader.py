"""AgentLoader: finds the apps of an agents directory and imports their root agent.

As google-adk does it: each sub-directory of ``agents_dir`` is an app; ``agents_dir``
goes on ``sys.path`` and the app is imported by its directory name, so relative
imports inside it work. ``app`` (a :class:`pyadk.apps.App`), else ``root_agent``, is
looked up in ``<app>/__init__.py`` then in ``<app>/agent.py``. The app's ``.env`` (or
``agents_dir/.env``) is loaded first; variables already set in the environment win.
Loaded agents are cached per app.

Differences from google-adk, on purpose: directories without ``agent.py`` or
``__init__.py``, or whose name is not a Python identifier, are not listed (see
:meth:`AgentLoader.skipped` for why a directory is missing); an app whose name is
taken by another module (``json``, ``test``...) is an error, not a silent import of
that module; a failing import names the file and line where it failed.

This module does not need the server dependencies (FastAPI, uvicorn).
"""

from __future__ import annotations

import importlib
import os
import sys
import threading
import traceback
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from pyadk.agents.base_agent import BaseAgent

if TYPE_CHECKING:
    from pyadk.apps.app import App

_IGNORED_DIRS = {"__pycache__", "node_modules", "venv", ".venv"}
_LOADED_FROM: dict[str, Path] = {}
"""App module name -> the app directory it was imported from (by any AgentLoader)."""
_IMPORT_LOCK = threading.RLock()


class AppNotFoundError(LookupError):
    """The agents directory has no app of that name."""


class AgentLoadError(RuntimeError):
    """An app exists but its root agent could not be loaded; the message names the file."""

    def __init__(self, message: str, *, app_name: str, file: Path | None = None) -> None:
        super().__init__(message)
        self.app_name = app_name
        self.file = file


class AgentLoader:
    """Lists the apps of ``agents_dir`` and loads their ``root_agent`` (cached per app)."""

    def __init__(self, agents_dir: str | Path) -> None:
        self.agents_dir = Path(agents_dir).expanduser().resolve()
        if not self.agents_dir.is_dir():
            raise FileNotFoundError(f"Agents directory not found: {self.agents_dir}")
        self._cache: dict[str, BaseAgent] = {}
        self._apps: dict[str, App] = {}

    def list_apps(self) -> list[str]:
        """The app names, sorted: sub-directories that hold an agent."""
        return sorted(name for name, why in self._scan().items() if why is None)

    def skipped(self) -> dict[str, str]:
        """Sub-directories that are not listed as apps, with the reason."""
        return {name: why for name, why in self._scan().items() if why is not None}

    def _scan(self) -> dict[str, str | None]:
        found: dict[str, str | None] = {}
        for path in self.agents_dir.iterdir():
            if not path.is_dir() or path.name.startswith(".") or path.name in _IGNORED_DIRS:
                continue
            if not ((path / "agent.py").is_file() or (path / "__init__.py").is_file()):
                found[path.name] = "no agent.py or __init__.py"
            elif not path.name.isidentifier():
                found[path.name] = "the name is not a Python identifier (use letters, digits, _)"
            else:
                found[path.name] = None
        return found

    def load_app(self, app_name: str) -> App | None:
        """The ``App`` the app's module exports as ``app`` (None when it exports only a
        ``root_agent``); raises like :meth:`load_agent`."""
        with _IMPORT_LOCK:
            self.load_agent(app_name)
            return self._apps.get(app_name)

    def load_agent(self, app_name: str) -> BaseAgent:
        """The app's root agent (an exported ``App``'s ``root_agent``); raises
        AppNotFoundError or AgentLoadError."""
        with _IMPORT_LOCK:
            cached = self._cache.get(app_name)
            if cached is not None:
                return cached
            apps = self.list_apps()
            if app_name not in apps:
                available = ", ".join(apps) or "none"
                raise AppNotFoundError(
                    f"App {app_name!r} not found in {self.agents_dir}. Available apps: {available}."
                )
            app_dir = self.agents_dir / app_name
            env_file = app_dir / ".env"
            load_env_file(env_file if env_file.is_file() else self.agents_dir / ".env")
            agent = self._import_root_agent(app_name, app_dir)
            self._cache[app_name] = agent
            return agent

    def invalidate(self, app_name: str | None = None) -> None:
        """Forgets a loaded app (all when None): the next load imports it again."""
        with _IMPORT_LOCK:
            names = [app_name] if app_name else list(self._cache)
            for name in names:
                self._cache.pop(name, None)
                self._apps.pop(name, None)
                _forget_modules(name, self.agents_dir / name)

    def _import_root_agent(self, name: str, app_dir: Path) -> BaseAgent:
        directory = str(self.agents_dir)
        if directory not in sys.path:
            sys.path.insert(0, directory)
        previous = _LOADED_FROM.get(name)
        if previous is not None and previous != app_dir:
            _forget_modules(name, previous)  # same app name imported from another agents dir
        candidates = [(name, app_dir / "__init__.py")]
        if (app_dir / "agent.py").is_file():
            candidates.append((f"{name}.agent", app_dir / "agent.py"))
        agent: object = None
        source = candidates[-1][1]
        for module_name, file in candidates:
            module = self._import(module_name, name, app_dir)
            app = _exported_app(module)
            if app is not None:
                self._apps[name] = app
            agent = app.root_agent if app is not None else getattr(module, "root_agent", None)
            if agent is not None:
                source = file
                break
        _LOADED_FROM[name] = app_dir
        if agent is None:
            raise AgentLoadError(
                f"No root_agent in app {name!r}: define `root_agent = LlmAgent(...)` "
                "(or `app = App(...)`) in "
                f"{app_dir / 'agent.py'} or {app_dir / '__init__.py'}.",
                app_name=name,
                file=source,
            )
        if not isinstance(agent, BaseAgent):
            raise AgentLoadError(
                f"{source}: root_agent of app {name!r} must be an agent (BaseAgent, e.g. "
                f"LlmAgent), got {type(agent).__name__}.",
                app_name=name,
                file=source,
            )
        return agent

    def _import(self, module_name: str, app_name: str, app_dir: Path) -> ModuleType:
        try:
            module = importlib.import_module(module_name)
        except Exception as exc:
            _forget_modules(app_name, app_dir)  # a fixed file can be loaded again
            file, line = _failing_location(exc, app_dir)
            where = f"{file}:{line}" if line else str(file)
            raise AgentLoadError(
                f"Failed to load app {app_name!r}: {where}: {type(exc).__name__}: {exc}",
                app_name=app_name,
                file=file,
            ) from exc
        location = _location(module)
        if location is None or not _inside(location, app_dir):
            raise AgentLoadError(
                f"App {app_name!r} clashes with the module {module_name!r} imported from "
                f"{location or 'a built-in'}; rename the directory {app_dir}.",
                app_name=app_name,
                file=app_dir,
            )
        return module


def _exported_app(module: ModuleType) -> App | None:
    """The module's ``app`` when it is a pyadk App (a FastAPI ``app`` is not)."""
    candidate = getattr(module, "app", None)
    if candidate is None:
        return None
    from pyadk.apps.app import App

    return candidate if isinstance(candidate, App) else None


def _location(module: ModuleType) -> Path | None:
    file = getattr(module, "__file__", None)
    if file:
        return Path(file).resolve()
    paths = list(getattr(module, "__path__", None) or [])
    return Path(paths[0]).resolve() if paths else None


def _inside(path: Path, directory: Path) -> bool:
    return path == directory or directory in path.parents


def _forget_modules(name: str, app_dir: Path) -> None:
    """Removes ``name`` and its submodules from sys.modules if they come from ``app_dir``."""
    for module_name in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
        location = _location(sys.modules[module_name])
        if location is not None and _inside(location, app_dir):
            del sys.modules[module_name]
    importlib.invalidate_caches()


def _failing_location(exc: BaseException, app_dir: Path) -> tuple[Path, int | None]:
    """The file and line in the app where ``exc`` was raised (SyntaxError: its own)."""
    if isinstance(exc, SyntaxError) and exc.filename:
        return Path(exc.filename), exc.lineno
    for frame in reversed(traceback.extract_tb(exc.__traceback__)):
        if _inside(Path(frame.filename).resolve(), app_dir):
            return Path(frame.filename), frame.lineno
    return app_dir / "agent.py", None


def load_env_file(path: Path | None) -> None:
    """Loads ``KEY=value`` lines of a .env file; variables already set are kept."""
    if path is None or not path.is_file():
        return
    try:
        from dotenv import load_dotenv
    except ImportError:  # the small parser below covers the common syntax
        for raw in path.read_text(encoding="utf-8").splitlines():
            line = raw.strip()
            if not line or line.startswith("#") or "=" not in line:
                continue
            key, value = line.removeprefix("export ").split("=", 1)
            value = value.strip()
            if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
                value = value[1:-1]
            os.environ.setdefault(key.strip(), value)
        return
    load_dotenv(path, override=False)
