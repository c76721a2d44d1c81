"""Renderer-neutral building blocks of a report.

Markdown and HTML are rendered from the same blocks, so the two outputs can
never disagree about a number, a verdict or which figures exist.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Heading:
    level: int
    text: str


@dataclass(frozen=True)
class Text:
    text: str
    warning: bool = False


@dataclass(frozen=True)
class Bullets:
    items: tuple


@dataclass(frozen=True)
class Table:
    headers: tuple
    rows: list = field(default_factory=list)
    verdict_columns: tuple = ()   # column indexes holding a status, coloured in HTML


@dataclass(frozen=True)
class Image:
    src: str       # relative to the report folder
    caption: str
