"""`pyadk run AGENT_DIR`: chat with an agent in the terminal."""

from __future__ import annotations

import asyncio
from pathlib import Path

import click

from pyadk.cli.chat import RunOptions, TurnFailedError, run_chat
from pyadk.cli.errors import CliError
from pyadk.cli.render import make_console
from pyadk.cli.services import store_options

_FILE = click.Path(exists=True, dir_okay=False, path_type=Path)


@click.command("run")
@click.argument("agent_dir", type=click.Path(path_type=Path))
@store_options
@click.option(
    "--save-session",
    "--save_session",
    "save_session",
    is_flag=True,
    help="On exit, write the session to AGENT_DIR/<session_id>.session.json.",
)
@click.option("--resume", type=_FILE, default=None, help="A saved session JSON to continue.")
@click.option(
    "--replay",
    type=_FILE,
    default=None,
    help='Run the queries of a JSON file {"state": {...}, "queries": [...]} and exit.',
)
@click.option(
    "--user-id", "--user_id", "user_id", default="test_user", show_default=True, help="The user id."
)
@click.option(
    "--session-id",
    "--session_id",
    "session_id",
    default=None,
    help="Session id (an existing one in --session-uri is continued; default: a new id).",
)
def run_command(
    agent_dir: Path,
    session_uri: str | None,
    artifact_uri: str | None,
    memory_uri: str | None,
    save_session: bool,
    resume: Path | None,
    replay: Path | None,
    user_id: str,
    session_id: str | None,
) -> None:
    """Chat with the agent in AGENT_DIR; type exit (or end the input) to quit."""
    if resume and replay:
        raise click.UsageError("--resume and --replay cannot be used together.")
    options = RunOptions(
        agent_dir=agent_dir,
        user_id=user_id,
        session_id=session_id,
        session_uri=session_uri,
        artifact_uri=artifact_uri,
        memory_uri=memory_uri,
        save_session=save_session,
        resume=resume,
        replay=replay,
    )
    try:
        asyncio.run(run_chat(options, make_console()))
    except CliError as error:
        raise click.ClickException(str(error)) from error
    except TurnFailedError as error:
        raise click.ClickException(f"Replay stopped: {error}") from error
    except KeyboardInterrupt:
        raise click.exceptions.Exit(130) from None
