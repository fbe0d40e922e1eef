"""``pyadk bench ...``: the benchmark CLI as a subcommand of the ``pyadk`` command."""

from __future__ import annotations

import click

PROG = "pyadk bench"


@click.command(
    "bench",
    add_help_option=False,
    context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False},
)
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
@click.pass_context
def bench_command(ctx: click.Context, args: tuple[str, ...]) -> None:
    """Benchmark agent generators on a task set (`pyadk bench --help`)."""
    from pyadk.contrib.bench.cli import main

    ctx.exit(main(list(args), prog=PROG))
