"""Loading objects by reference: ``package.module:attr`` or ``/path/to/file.py:attr``."""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import sys
from pathlib import Path
from typing import Any


def is_reference(text: str) -> bool:
    """True when ``text`` looks like ``module:attr`` or ``file.py:attr``."""
    target, sep, attr = text.rpartition(":")
    return bool(sep and target and attr and attr.replace(".", "_").isidentifier())


def load_module_from_file(path: str | Path, module_name: str | None = None) -> Any:
    """Imports the Python file at ``path`` as a module (registered in sys.modules)."""
    path = Path(path).resolve()
    if not path.is_file():
        raise FileNotFoundError(f"No such Python file: {path}")
    if module_name is None:
        digest = hashlib.sha1(str(path).encode()).hexdigest()[:10]
        module_name = f"_pyadk_loaded_{path.stem}_{digest}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"Cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(module_name, None)
        raise
    return module


def load_object(reference: str) -> Any:
    """The object named by ``module:attr`` or ``path/to/file.py:attr`` (attr may be dotted)."""
    if not is_reference(reference):
        raise ValueError(
            f"{reference!r} is not a reference: write 'package.module:name' or "
            "'path/to/file.py:name'."
        )
    target, _, attr = reference.rpartition(":")
    if target.endswith(".py") or "/" in target or "\\" in target:
        module = load_module_from_file(target)
    else:
        module = importlib.import_module(target)
    value: Any = module
    for part in attr.split("."):
        try:
            value = getattr(value, part)
        except AttributeError:
            raise AttributeError(f"{target!r} has no attribute {attr!r}") from None
    return value
