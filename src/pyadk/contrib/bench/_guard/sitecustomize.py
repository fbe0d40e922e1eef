"""Sandboxes every Python process started by a verification command (limits, no network).

Only on PYTHONPATH for verification commands, and only active when the
``PYADK_SANDBOX_LIMITS`` variable is set.
"""

import os

if os.environ.get("PYADK_SANDBOX_LIMITS"):
    from pyadk.contrib.structured_workflow.sandbox import enter_sandbox

    enter_sandbox()
