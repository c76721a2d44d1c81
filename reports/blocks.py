"""Renderer-neutral building blocks of a report.

Markdown and HTML are rendered from the same blocks, so the two outputs can
never disagree about a number, a verdict or which figures exist.

Inline content (a Text, a bullet, a table cell) is a str, a Link, a Fold, or
a tuple of those joined without separators.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Link:
    text: str
    href: str              # HTML target: "#row-id" or a relative file
    md_href: str = ""      # Markdown target when it differs (Markdown tables have no row ids)


@dataclass(frozen=True)
class Fold:
    """A long value shown by its start; HTML unfolds the rest on a click."""
    text: str
    shown: int = 60

    @property
    def head(self) -> str:
        return self.text[:self.shown].rstrip() + "…"


@dataclass(frozen=True)
class Heading:
    level: int
    text: str


@dataclass(frozen=True)
class Text:
    text: object           # inline content
    warning: bool = False
    tone: str = ""         # "ok" | "bad": the verdict line, coloured in HTML


@dataclass(frozen=True)
class Bullets:
    items: tuple


@dataclass(frozen=True)
class Table:
    headers: tuple
    rows: list = field(default_factory=list)
    verdict_columns: tuple = ()   # column indexes holding a status, coloured in HTML
    row_ids: tuple = ()           # HTML id per row, so a summary can link to a case


@dataclass(frozen=True)
class Image:
    src: str       # relative to the report folder
    caption: str


@dataclass(frozen=True)
class Details:
    """Content folded under a one-line summary (<details> in both outputs)."""
    summary: str
    blocks: tuple
