"""HandoffTextFilter: which sentences are handoff announcements, and lossless splitting."""

from __future__ import annotations

import pytest

from pyadk.server.handoff_filter import HandoffTextFilter, visible_text


@pytest.mark.parametrize(
    "sentence",
    [
        "Transferring you to the code reviewer.",
        "I'll connect you with our billing specialist!",
        "Let me route this to the security agent.",
        "Handing off now.",
        "I am delegating this to security_scanner.",
        "Passing this over to the data team.",
        "The code reviewer will take it from here, let me transfer to code reviewer.",
        "Calling transfer_to_agent(code_reviewer).",
    ],
)
def test_announcements(sentence: str) -> None:
    assert HandoffTextFilter(["code_reviewer", "security_scanner"]).is_announcement(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "I transferred $50 to your savings account.",
        "Your flight routes through Oslo.",
        "The code has 2 issues.",
        "Pass the list to sorted() to get a copy.",
        "I look forward to being your assistant.",
    ],
)
def test_ordinary_sentences(sentence: str) -> None:
    assert not HandoffTextFilter(["code_reviewer"]).is_announcement(sentence)


def test_streamed_text_is_released_per_sentence_and_nothing_is_lost() -> None:
    text_filter = HandoffTextFilter(["code_reviewer"])
    chunks = ["Pi is 3.", "14 roughly. Transferring you to ", "code_reviewer. ", "Bye"]

    pieces = [piece for chunk in chunks for piece in text_filter.feed(chunk)]
    pieces += text_filter.flush()

    assert pieces == [
        ("Pi is 3.14 roughly. ", False),  # "3." followed by "14" did not end the sentence
        ("Transferring you to code_reviewer. ", True),
        ("Bye", False),
    ]
    assert "".join(text for text, _ in pieces) == "".join(chunks)


def test_nothing_is_released_before_the_sentence_ends() -> None:
    text_filter = HandoffTextFilter()

    assert text_filter.feed("Let me hand you ") == []
    assert text_filter.feed("over to the team.\nOK") == [
        ("Let me hand you over to the team.\n", True)
    ]
    assert text_filter.flush() == [("OK", False)]


def test_long_sentence_without_an_end_is_released_after_max_hold() -> None:
    text_filter = HandoffTextFilter(max_hold=10)

    assert text_filter.feed("x" * 11) == [("x" * 11, False)]
    assert text_filter.flush() == []


def test_flush_all_handoff_and_disabled_filter() -> None:
    text_filter = HandoffTextFilter()
    text_filter.feed("One moment please")

    assert text_filter.flush(all_handoff=True) == [("One moment please", True)]
    disabled = HandoffTextFilter(enabled=False)
    assert disabled.feed("Transferring you now. ") == [("Transferring you now. ", False)]
    assert visible_text(disabled.split("Transferring you. Hi")) == "Transferring you. Hi"
