"""The `pyadk` command line: run, create, web, api_server."""

from pyadk.cli.main import cli, main

__all__ = ["cli", "main"]
