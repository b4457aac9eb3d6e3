"""HTML as Markdown, for ``fetch``: the text a person would read, with its headings, links,
lists and code, and without scripts, styles, forms or the page's head (its title aside).

A small reader over the standard library's ``HTMLParser``, not a browser: it keeps the
structure the model needs to read documentation and leaves the rest out.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from urllib.parse import urljoin

SKIPPED = frozenset(
    {"script", "style", "noscript", "svg", "template", "iframe", "form", "button", "select"}
)
BLOCKS = frozenset(
    {
        "p",
        "div",
        "section",
        "article",
        "main",
        "header",
        "footer",
        "nav",
        "aside",
        "table",
        "tr",
        "ul",
        "ol",
        "dl",
        "dt",
        "dd",
        "blockquote",
        "figure",
        "figcaption",
        "hr",
        "br",
    }
)
HEADINGS = {f"h{level}": level for level in range(1, 7)}
EMPHASIS = {"strong": "**", "b": "**", "em": "*", "i": "*"}


class _Reader(HTMLParser):
    def __init__(self, base: str) -> None:
        super().__init__(convert_charrefs=True)
        self.base = base
        self.parts: list[str] = []
        self.title = ""
        self._skipping = 0
        self._in_title = False
        self._pre = 0
        self._links: list[str | None] = []
        self._lists: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in SKIPPED:
            self._skipping += 1
            return
        if self._skipping:
            return
        if tag == "title":
            self._in_title = True
        elif tag in HEADINGS:
            self._block("#" * HEADINGS[tag] + " ")
        elif tag == "pre":
            self._block("```\n")
            self._pre += 1
        elif tag == "code" and not self._pre:
            self.parts.append("`")
        elif tag in ("ul", "ol"):
            self._lists.append(tag)
            self._block("")
        elif tag == "li":
            depth = "  " * max(len(self._lists) - 1, 0)
            mark = "1." if self._lists and self._lists[-1] == "ol" else "-"
            self._block(f"{depth}{mark} ")
        elif tag in ("td", "th"):
            self.parts.append(" | ")
        elif tag == "a":
            href = dict(attrs).get("href")
            self._links.append(urljoin(self.base, href) if href else None)
            self.parts.append("[")
        elif tag in EMPHASIS:
            self.parts.append(EMPHASIS[tag])
        elif tag == "img":
            alt = dict(attrs).get("alt")
            if alt:
                self.parts.append(f"[image: {alt}]")
        elif tag in BLOCKS:
            self._block("")

    def handle_endtag(self, tag: str) -> None:
        if tag in SKIPPED:
            self._skipping = max(self._skipping - 1, 0)
            return
        if self._skipping:
            return
        if tag == "title":
            self._in_title = False
        elif tag == "pre" and self._pre:
            self._pre -= 1
            self.parts.append("\n```\n\n")
        elif tag == "code" and not self._pre:
            self.parts.append("`")
        elif tag in ("ul", "ol") and self._lists:
            self._lists.pop()
            self._block("")
        elif tag == "a" and self._links:
            href = self._links.pop()
            self.parts.append(f"]({href})" if href else "]")
        elif tag in EMPHASIS:
            self.parts.append(EMPHASIS[tag])
        elif tag in HEADINGS or tag in BLOCKS:
            self._block("")

    def handle_data(self, data: str) -> None:
        if self._skipping:
            return
        if self._in_title:
            self.title += data
            return
        self.parts.append(data if self._pre else re.sub(r"\s+", " ", data))

    def _block(self, start: str) -> None:
        self.parts.append("\n\n" + start)


def html_to_markdown(html: str, base: str) -> str:
    """The page ``html`` (fetched from ``base``, which relative links resolve against) as
    Markdown, its title first."""
    reader = _Reader(base)
    reader.feed(html)
    reader.close()
    text = "".join(reader.parts)
    lines = [line.rstrip() for line in text.split("\n")]
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
    title = re.sub(r"\s+", " ", reader.title).strip()
    return f"# {title}\n\n{text}" if title and not text.startswith(f"# {title}") else text
