"""The live tests' shared helpers live in live_support.py (put on sys.path here)."""

from __future__ import annotations

import sys
from pathlib import Path

HERE = str(Path(__file__).parent)
if HERE not in sys.path:
    sys.path.insert(0, HERE)
