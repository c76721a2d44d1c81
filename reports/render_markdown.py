"""report.md: the document blocks as GitHub-flavoured Markdown."""

from __future__ import annotations

from functools import singledispatch

from .blocks import Bullets, Heading, Image, Table, Text


def render_markdown(blocks) -> str:
    return "\n\n".join(_render(b) for b in blocks) + "\n"


@singledispatch
def _render(block) -> str:
    raise TypeError(f"no Markdown for {type(block).__name__}")


@_render.register
def _(block: Heading) -> str:
    return "#" * block.level + " " + block.text


@_render.register
def _(block: Text) -> str:
    return f"> **Warning:** {block.text}" if block.warning else block.text


@_render.register
def _(block: Bullets) -> str:
    return "\n".join(f"- {item}" for item in block.items)


@_render.register
def _(block: Table) -> str:
    lines = [_row(block.headers), _row(["---"] * len(block.headers))]
    lines += [_row(row) for row in block.rows]
    return "\n".join(lines)


@_render.register
def _(block: Image) -> str:
    return f"![{block.caption}]({block.src})"


def _row(cells) -> str:
    return "| " + " | ".join(_cell(c) for c in cells) + " |"


def _cell(text) -> str:
    # A pipe would end the cell, a newline the table; both come from free
    # text such as skip reasons.
    return " ".join(str(text).split()).replace("|", "\\|")
