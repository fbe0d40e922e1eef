"""Child process of a checker verification: runs ``checker(solution)`` in the sandbox.

Reads ``{"checker", "solution"}`` as JSON on stdin; the last stdout line is
``VERDICT {"passed": bool, "reason": str}``.
"""

from __future__ import annotations

import json
import sys
import traceback
from typing import Any

VERDICT = "VERDICT "


def verdict_of(value: Any) -> tuple[bool, str]:
    """A checker's return value as (passed, reason)."""
    if value is None or value is True:
        return True, ""
    if value is False:
        return False, "the checker returned False"
    if isinstance(value, str):
        return False, value
    if isinstance(value, tuple) and len(value) == 2:
        return bool(value[0]), str(value[1] or "")
    return bool(value), ""


def main() -> int:
    request = json.loads(sys.stdin.read())
    from pyadk.contrib._loading import load_object
    from pyadk.contrib.structured_workflow.sandbox import enter_sandbox

    checker = load_object(request["checker"])  # trusted: imported before the sandbox
    enter_sandbox()
    try:
        passed, reason = verdict_of(checker(request["solution"]))
    except AssertionError as error:
        passed, reason = False, str(error) or "assertion failed"
    except BaseException as error:
        lines = traceback.format_exception(error)
        passed = False
        reason = f"{type(error).__name__}: {error}\n" + "".join(lines[-6:])
    sys.stdout.flush()
    print("\n" + VERDICT + json.dumps({"passed": passed, "reason": reason[:2000]}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
