"""CliError: a problem the CLI reports as one clear line (exit status 1), no traceback."""

from __future__ import annotations


class CliError(Exception):
    """A user-facing error: a missing directory, a broken agent file, a bad option value."""
