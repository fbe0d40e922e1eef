"""ROUGE-1 (unigram overlap) computed locally, tokenised as google-adk does.

Latin-script words are lowercased, split on anything but ``[a-z0-9]`` and, when longer
than three letters, reduced by the Porter stemmer (nltk's, the ``[eval]`` extra); words
of other scripts are kept whole, and characters of scripts written without spaces
(Chinese, Japanese, Korean, Thai, ...) count one each.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Callable
from functools import cache

_ASCII_WORD = re.compile(r"[a-z0-9]+")
_CJK = ((0x4E00, 0x9FFF), (0x3040, 0x30FF), (0xAC00, 0xD7AF))
"""Ideographs, kana and Hangul syllables: each character is a word of its own."""
_CLUSTERED = ((0x0E00, 0x0EFF), (0x1000, 0x109F), (0x1780, 0x17FF))
"""Thai, Lao, Myanmar, Khmer: each base letter with its combining marks is a word."""


class MissingEvalExtraError(ImportError):
    """response_match_score needs the Porter stemmer from the ``[eval]`` extra."""


@cache
def _stemmer() -> Callable[[str], str]:
    try:
        from nltk.stem.porter import PorterStemmer
    except ImportError as error:
        raise MissingEvalExtraError(
            "response_match_score needs nltk's Porter stemmer: pip install 'pyadk[eval]'"
        ) from error
    return PorterStemmer().stem


def _within(char: str, ranges: tuple[tuple[int, int], ...]) -> bool:
    code = ord(char)
    return any(low <= code <= high for low, high in ranges)


def _is_mark(char: str) -> bool:
    return unicodedata.category(char).startswith("M")


def tokenize(text: str) -> list[str]:
    """The unigrams ROUGE-1 counts in ``text``."""
    stem = _stemmer()
    spaced: list[str] = []
    for char in unicodedata.normalize("NFKC", text).lower():
        if _within(char, _CJK):
            spaced.append(f" {char} ")
        elif _within(char, _CLUSTERED):
            spaced.append(char if _is_mark(char) else f" {char}")
        elif char.isalnum() or _is_mark(char):
            spaced.append(char)
        else:
            spaced.append(" ")
    tokens: list[str] = []
    for word in "".join(spaced).split():
        if not word.isascii():
            tokens.append(word)
            continue
        for piece in _ASCII_WORD.findall(word):
            tokens.append(stem(piece) if len(piece) > 3 else piece)
    return tokens


def rouge1_fmeasure(candidate: str, reference: str) -> float:
    """The F-measure of unigram overlap between ``candidate`` and ``reference``."""
    got, wanted = Counter(tokenize(candidate)), Counter(tokenize(reference))
    overlap = sum((got & wanted).values())
    if not overlap:
        return 0.0
    precision = overlap / sum(got.values())
    recall = overlap / sum(wanted.values())
    return 2 * precision * recall / (precision + recall)
