import sys
from pathlib import Path

import pytest

from pyadk.models.defaults import get_default_model, set_default_model

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

for project in ("poc6_sequential_failure", "poc6_policies", "vana"):
    path = str(EXAMPLES / project)
    if path not in sys.path:
        sys.path.insert(0, path)


@pytest.fixture(autouse=True)
def _restore_default_model():
    previous = get_default_model()
    yield
    set_default_model(previous)
