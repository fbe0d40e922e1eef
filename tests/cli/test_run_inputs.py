"""`pyadk run` and graph workflows that ask for input (``RequestInput``): the turn that
ends with an ``adk_request_input`` call shows the question and asks for the answer,
sends it as the next turn; node outputs are shown, the workflow's own as its answer; a
resumed session that waits is asked first; a replay stops at the request."""

from __future__ import annotations

import json

BOOKING = """
from pyadk import types
from pyadk.workflow import START, Context, RequestInput, Workflow, node


def seats(node_input: types.Content) -> RequestInput:
    return RequestInput(message="How many seats?", response_schema=int, payload={"max": 4})


@node(rerun_on_resume=True)
def confirm(node_input: int, ctx: Context):
    answer = ctx.resume_inputs.get("ok")
    if answer is None:
        return RequestInput(interrupt_id="ok", message=f"Book {node_input} seats?")
    text = f"{node_input} seats booked" if answer == "yes" else "cancelled"
    return types.Content(role="model", parts=[types.Part(text=text)])


root_agent = Workflow(name="booking", edges=[(START, seats, confirm)])
"""

SEATS = '[booking] input: How many seats? (a whole number; payload {"max": 4})'
PROMPT = "Your answer (empty: skip): "


def after(stdout: str, first: str) -> list[str]:
    lines = stdout.splitlines()
    return lines[lines.index(first) :]


def test_each_question_is_asked_and_the_workflow_answers(run_cli, write_agent):
    write_agent("booking", BOOKING)

    result = run_cli("run", "booking", input="book\n3\nyes\nexit\n")

    assert result.returncode == 0, result.stderr
    assert after(result.stdout, "[user]: book") == [
        "[user]: book",
        SEATS,
        PROMPT,
        "[user]: 3",
        "[booking] ⇒ seats output 3",
        "[booking] input: Book 3 seats?",
        PROMPT,
        "[user]: yes",
        "[booking]: 3 seats booked",
    ]
    assert "adk_request_input" not in result.stdout


def test_node_outputs_that_are_not_text_are_shown_as_json(run_cli, write_agent):
    write_agent(
        "mixed",
        """
        from pyadk.agents import LlmAgent
        from pyadk.testing import ScriptedModel
        from pyadk.workflow import START, Workflow


        def shout(node_input: str) -> dict:
            return {"loud": node_input.upper()}


        def count(node_input: dict) -> int:
            return len(node_input["loud"])


        writer = LlmAgent(name="writer", model=ScriptedModel(["rain"]))
        root_agent = Workflow(name="mixed", edges=[(START, writer, shout, count)])
        """,
    )

    result = run_cli("run", "mixed", input="go\nexit\n")

    assert result.returncode == 0, result.stderr
    assert after(result.stdout, "[user]: go") == [
        "[user]: go",
        "[writer]: rain",  # an agent node's answer is shown once, as its text
        '[mixed] ⇒ shout output {"loud": "RAIN"}',
        "[mixed]: 4",
    ]


def test_the_end_of_input_leaves_the_workflow_waiting(run_cli, write_agent, tmp_path):
    write_agent("booking", BOOKING)

    result = run_cli("run", "booking", "--save-session", input="book\n")

    assert result.returncode == 0, result.stderr
    assert after(result.stdout, SEATS)[:3] == [
        SEATS,
        PROMPT,
        "Input not given: the workflow waits for it.",
    ]

    [saved] = (tmp_path / "booking").glob("*.session.json")
    resumed = run_cli("run", "booking", "--resume", str(saved), input="2\nno\nexit\n")

    assert resumed.returncode == 0, resumed.stderr
    assert after(resumed.stdout, "The session waits for input for booking.") == [
        "The session waits for input for booking.",
        PROMPT,
        "[user]: 2",
        "[booking] ⇒ seats output 2",
        "[booking] input: Book 2 seats?",
        PROMPT,
        "[user]: no",
        "[booking]: cancelled",
        resumed.stdout.splitlines()[-1],
    ]


def test_a_resumed_session_shows_the_answers_it_holds(run_cli, write_agent, tmp_path):
    write_agent("booking", BOOKING)
    run_cli("run", "booking", "--save-session", input="book\n3\nyes\nexit\n")
    [saved] = (tmp_path / "booking").glob("*.session.json")

    result = run_cli("run", "booking", "--resume", str(saved), input="exit\n")

    assert result.returncode == 0, result.stderr
    assert PROMPT not in result.stdout  # nothing waits
    lines = result.stdout.splitlines()
    assert lines[3:5] == ["[user]: 3", "[booking] ⇒ seats output 3"]
    assert "[user]: yes" in lines and "[booking]: 3 seats booked" in lines


def test_a_replay_stops_at_an_input_request(run_cli, write_agent, tmp_path):
    write_agent("booking", BOOKING)
    replay = tmp_path / "replay.json"
    replay.write_text(json.dumps({"queries": ["book", "and another"]}))

    result = run_cli("run", "booking", "--replay", str(replay), input="3\n")

    assert result.returncode == 1
    assert PROMPT not in result.stdout
    assert "and another" not in result.stdout
    assert "query 'book' ended waiting for input for booking" in result.stderr


def test_an_answer_that_does_not_fit_is_reported_and_asked_again(run_cli, write_agent):
    write_agent("booking", BOOKING)

    result = run_cli("run", "booking", input="book\nthree\n3\nyes\nexit\n")

    assert result.returncode == 0, result.stderr
    reason = (
        "The answer 'three' does not fit the requested input ({'type': 'integer'}): Input "
        "should be a valid integer, unable to parse string as an integer"
    )
    assert after(result.stdout, "[user]: three") == [
        "[user]: three",
        f"[booking] outcome failure: {reason}",
        f"error: InputAnswerError: {reason}",
        PROMPT,  # asked again: the workflow still waits
        "[user]: 3",
        "[booking] ⇒ seats output 3",
        "[booking] input: Book 3 seats?",
        PROMPT,
        "[user]: yes",
        "[booking]: 3 seats booked",
    ]


PAYING = """
from pyadk.workflow import START, Workflow, node


def price(node_input) -> dict:
    return {"amount": 40}


def pay(amount: int) -> str:
    return f"paid {amount}"


root_agent = Workflow(
    name="checkout",
    edges=[(START, price, node(pay, parameter_binding="node_input", require_confirmation=True))],
)
"""


def test_a_workflow_approval_is_asked_as_y_or_n(run_cli, write_agent):
    write_agent("checkout", PAYING)

    result = run_cli("run", "checkout", input="buy\nmaybe\ny\nbuy again\nn\nexit\n")

    assert result.returncode == 0, result.stderr
    asked = '[checkout] approval: pay({"amount": 40}): Approve or reject pay().'
    assert after(result.stdout, "[user]: buy") == [
        "[user]: buy",
        '[checkout] ⇒ price output {"amount": 40}',
        asked,
        "Approve? [y/N] ",
        "error: Answer y or n, not 'maybe'.",
        "Approve? [y/N] ",
        "[user]: Approved pay",
        "[checkout]: paid 40",
        "[user]: buy again",
        '[checkout] ⇒ price output {"amount": 40}',
        asked,
        "Approve? [y/N] ",
        "[user]: Rejected pay",
        '[checkout]: {"error": "This tool call is rejected."}',
    ]
    assert "adk_request_input" not in result.stdout
