"""The readable text of an HTML page, one line per block, with the standard library.

Text inside one block element (a paragraph, a heading, a list item, a table cell, ...)
is joined into one line with its whitespace collapsed, so inline markup (``<b>``,
``<a>``) does not split a sentence. ``<br>`` breaks a line, ``<pre>`` keeps its line
breaks. Scripts, styles, templates, ``<noscript>`` and comments are not text.
"""

from __future__ import annotations

from html.parser import HTMLParser

_HIDDEN = frozenset({"script", "style", "template", "noscript"})
_BLOCKS = frozenset(
    {
        "address", "article", "aside", "blockquote", "body", "br", "caption", "dd",
        "details", "dialog", "div", "dl", "dt", "fieldset", "figcaption", "figure",
        "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "head", "header", "hr",
        "html", "li", "main", "nav", "ol", "option", "p", "pre", "section", "summary",
        "table", "tbody", "td", "tfoot", "th", "thead", "title", "tr", "ul",
    }
)  # fmt: skip


class _TextParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: list[str] = []
        self._pending: list[str] = []
        self._hidden = 0
        self._pre = 0

    def _flush(self) -> None:
        text = "".join(self._pending)
        self._pending.clear()
        found = text.splitlines() if self._pre else [" ".join(text.split())]
        self.lines.extend(line.strip() for line in found if line.strip())

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _HIDDEN:
            self._hidden += 1
        elif tag in _BLOCKS:
            self._flush()
            self._pre += tag == "pre"

    def handle_endtag(self, tag: str) -> None:
        if tag in _HIDDEN:
            self._hidden = max(0, self._hidden - 1)
        elif tag in _BLOCKS:
            self._flush()
            if tag == "pre":
                self._pre = max(0, self._pre - 1)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _BLOCKS and tag not in _HIDDEN:
            self._flush()

    def handle_data(self, data: str) -> None:
        if not self._hidden:
            self._pending.append(data)


def html_lines(html: str) -> list[str]:
    """The non-empty text lines of ``html``, in document order."""
    parser = _TextParser()
    parser.feed(html)
    parser.close()
    parser._flush()
    return parser.lines
