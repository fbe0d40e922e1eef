"""BaseExampleProvider: examples picked for each query."""

from __future__ import annotations

import abc

from pyadk.examples.example import Example


class BaseExampleProvider(abc.ABC):
    """Gives the examples that suit a user's query (e.g. the nearest ones from a store)."""

    @abc.abstractmethod
    def get_examples(self, query: str) -> list[Example]:
        """The examples for ``query`` (the text of the user's message)."""
