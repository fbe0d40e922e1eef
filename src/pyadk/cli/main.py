"""The `pyadk` command group (console script entry point: :func:`main`)."""

from __future__ import annotations

import click

from pyadk.cli.create_cmd import create_command
from pyadk.cli.eval_cmd import eval_command
from pyadk.cli.run_cmd import run_command
from pyadk.cli.serve_cmd import api_server_command, web_command
from pyadk.contrib.bench.command import bench_command
from pyadk.version import __version__


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="pyadk")
def cli() -> None:
    """pyadk: build, run and serve agents."""


cli.add_command(run_command)
cli.add_command(create_command)
cli.add_command(web_command)
cli.add_command(api_server_command)
cli.add_command(eval_command)
cli.add_command(bench_command)


def main() -> None:
    """Runs the `pyadk` command."""
    cli(prog_name="pyadk")
