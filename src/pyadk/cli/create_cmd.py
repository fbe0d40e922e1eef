"""`pyadk create NAME`: a new agent project that runs at once (no key needed)."""

from __future__ import annotations

from pathlib import Path

import click

from pyadk.cli.errors import CliError

_INIT = """from . import agent

__all__ = ["agent"]
"""

_AGENT = '''"""{name}: an agent created by `pyadk create`.

Run it with `pyadk run {name}` or serve it with `pyadk web .` from the parent folder.
"""

from pyadk.agents import LlmAgent
from pyadk.tools import ToolContext
{model_imports}

def add(a: float, b: float, tool_context: ToolContext) -> float:
    """Adds two numbers.

    Args:
      a: the first number.
      b: the second number.
    """
    tool_context.state["calculations"] = tool_context.state.get("calculations", 0) + 1
    return a + b


def multiply(a: float, b: float, tool_context: ToolContext) -> float:
    """Multiplies two numbers.

    Args:
      a: the first number.
      b: the second number.
    """
    tool_context.state["calculations"] = tool_context.state.get("calculations", 0) + 1
    return a * b


root_agent = LlmAgent(
    name="{name}",
    model={model_expr},
    description="Adds and multiplies numbers.",
    instruction="You are a helpful calculator. Use the tools for arithmetic.",
    tools=[add, multiply],
)
'''

_DEMO_IMPORTS = """from pyadk.demo import demo_model_reply
from pyadk.models import get_default_model
from pyadk.testing import FunctionModel

# No model was named: the framework's default model when one is configured, else
# pyadk's offline rule-based demo model (it understands "what is 6 * 7?").
# Name a real model instead, e.g. model="gemini-2.0-flash", and set its key in .env.
MODEL = get_default_model() or FunctionModel(demo_model_reply, model="pyadk-demo")
"""

_ENV_EXAMPLE = """# Copy this file to .env: `pyadk run` and `pyadk web` load it before importing
# the agent (variables already set in the environment win).
# Keys for the model providers you use:
# GOOGLE_API_KEY=
# OPENAI_API_KEY=
# ANTHROPIC_API_KEY=
"""


def agent_files(name: str, model: str | None) -> dict[str, str]:
    """The files of a new agent project, by path relative to its folder."""
    if model:
        agent = _AGENT.format(name=name, model_imports="", model_expr=repr(model))
    else:
        agent = _AGENT.format(name=name, model_imports=_DEMO_IMPORTS, model_expr="MODEL")
    return {"__init__.py": _INIT, "agent.py": agent, ".env.example": _ENV_EXAMPLE}


def create_agent_project(name: str, model: str | None, parent: Path) -> Path:
    """Writes the project ``parent/name``; CliError if the name is unusable or taken."""
    if not name.isidentifier():
        raise CliError(
            f"Invalid agent name {name!r}: use a Python identifier (letters, digits and "
            "underscores, not starting with a digit), e.g. my_agent."
        )
    target = parent / name
    if target.exists():
        raise CliError(f"{target} already exists: choose another name or remove it first.")
    if not parent.is_dir():
        raise CliError(f"Directory not found: {parent}")
    target.mkdir()
    for relative, text in agent_files(name, model).items():
        (target / relative).write_text(text, encoding="utf-8")
    return target


@click.command("create")
@click.argument("name")
@click.option("--model", default=None, help="Model name, e.g. gemini-2.0-flash (default: demo).")
@click.option(
    "--dir",
    "parent",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("."),
    show_default=True,
    help="Folder to create the project in.",
)
def create_command(name: str, model: str | None, parent: Path) -> None:
    """Create the agent project NAME (NAME/__init__.py, agent.py, .env.example)."""
    try:
        target = create_agent_project(name, model, parent)
    except CliError as error:
        raise click.ClickException(str(error)) from error
    click.echo(f"Created agent project {target}")
    for relative in agent_files(name, model):
        click.echo(f"  {target / relative}")
    click.echo(f"Try it: pyadk run {target}")
