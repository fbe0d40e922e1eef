"""Keeps agent-handoff announcements ("Transferring you to ...") out of chat text.

Models often say something before or instead of calling ``transfer_to_agent``. The
UI protocol routes such sentences to the thinking panel. Text is checked sentence by
sentence: a streamed sentence is held until it ends (``.``, ``!``, ``?`` followed by
whitespace, or a newline), then released to the chat or, if it announces a handoff,
to the thinking panel. A sentence longer than ``max_hold`` characters is released
without waiting for its end (announcements are short).

A sentence is an announcement when it contains a "you" handoff phrase ("transferring
you", "connecting you", "handing you over", "routing you", "handing off",
"transfer_to_agent"), or a transfer verb (transfer, route, delegate, hand off/over,
pass on/over/along) together with a target: an agent name of the tree
(``code_reviewer`` also matches "code reviewer") or a word like agent, specialist,
expert, colleague, team. So "I transferred $50 to your savings" stays in the chat,
"Let me route this to the security specialist" does not.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

Piece = tuple[str, bool]
"""A piece of text and whether it is a handoff announcement (hidden from the chat)."""

_STRONG = re.compile(
    r"\b(?:transferr?(?:ing|ed)?\s+you|transfer\s+you|hand(?:ing|ed)?\s+you\s+(?:off|over)"
    r"|hand(?:ing|ed)?\s+(?:this\s+|it\s+)?off|connect(?:ing)?\s+you|rout(?:e|ing)\s+you"
    r"|pass(?:ing)?\s+you|redirect(?:ing)?\s+you)\b|transfer_to_agent",
    re.IGNORECASE,
)
_VERB = re.compile(
    r"\b(?:transfer\w*|rout(?:e|es|ed|ing)|delegat\w*"
    r"|(?:hand|pass)(?:es|s|ing|ed)?\s+(?:(?:it|this|that|you)\s+)?(?:off|over|on|along))\b",
    re.IGNORECASE,
)
_TARGET_WORDS = r"agents?|specialists?|experts?|colleagues?|team|department|sub-?agents?"
_BOUNDARY = re.compile(r"[.!?\u2026]+[\"')\]]*\s+|\n+")


class HandoffTextFilter:
    """Splits streamed text into chat text and handoff announcements, in order.

    ``feed(delta)`` returns the pieces that are complete; ``flush()`` returns the rest.
    Joining every returned piece gives back exactly the text fed in.
    """

    def __init__(
        self, agent_names: Iterable[str] = (), *, enabled: bool = True, max_hold: int = 400
    ) -> None:
        self.enabled = enabled
        self.max_hold = max_hold
        names = [re.escape(n).replace("_", "[ _]") for n in agent_names if n]
        alternatives = "|".join([*names, _TARGET_WORDS])
        self._target = re.compile(rf"\b(?:{alternatives})\b", re.IGNORECASE)
        self._pending = ""

    def is_announcement(self, sentence: str) -> bool:
        """True when ``sentence`` announces a handoff to another agent."""
        if _STRONG.search(sentence):
            return True
        return bool(_VERB.search(sentence) and self._target.search(sentence))

    def feed(self, delta: str) -> list[Piece]:
        """Adds streamed text; returns the pieces whose sentence is complete."""
        if not self.enabled:
            return [(delta, False)] if delta else []
        self._pending += delta
        pieces: list[Piece] = []
        start = 0
        # A boundary needs whitespace after the punctuation, so a trailing "3." waits
        # for the next delta ("14") instead of ending the sentence.
        for match in _BOUNDARY.finditer(self._pending):
            sentence = self._pending[start : match.end()]
            pieces.append((sentence, self.is_announcement(sentence)))
            start = match.end()
        self._pending = self._pending[start:]
        if len(self._pending) > self.max_hold and not self.is_announcement(self._pending):
            pieces.append((self._pending, False))
            self._pending = ""
        return pieces

    def flush(self, *, all_handoff: bool = False) -> list[Piece]:
        """The text still held; ``all_handoff`` marks it as an announcement regardless."""
        rest, self._pending = self._pending, ""
        if not rest:
            return []
        return [(rest, all_handoff or (self.enabled and self.is_announcement(rest)))]

    def split(self, text: str, *, all_handoff: bool = False) -> list[Piece]:
        """A whole (non-streamed) text as pieces; the filter must be empty."""
        if all_handoff:
            return [(text, True)] if text else []
        return self.feed(text) + self.flush()


def visible_text(pieces: Iterable[Piece]) -> str:
    """The chat text of ``pieces``."""
    return "".join(text for text, hidden in pieces if not hidden)
