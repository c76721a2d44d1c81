"""report.md: the document blocks as GitHub-flavoured Markdown."""

from __future__ import annotations

from functools import singledispatch

from .blocks import Bullets, Details, Fold, Heading, Image, Link, Table, Text


def render_markdown(blocks) -> str:
    return "\n\n".join(_render(b) for b in blocks) + "\n"


def inline(content) -> str:
    if isinstance(content, Link):
        return f"[{content.text}]({content.md_href or content.href})"
    if isinstance(content, Fold):
        return content.text  # Markdown cannot fold inside a table cell; the table is folded
    if isinstance(content, tuple):
        return "".join(inline(part) for part in content)
    return str(content)


@singledispatch
def _render(block) -> str:
    raise TypeError(f"no Markdown for {type(block).__name__}")


@_render.register
def _(block: Heading) -> str:
    return "#" * block.level + " " + block.text


@_render.register
def _(block: Text) -> str:
    text = inline(block.text)
    if block.warning:
        return f"> **Warning:** {text}"
    return f"**{text}**" if block.tone else text


@_render.register
def _(block: Bullets) -> str:
    return "\n".join(f"- {inline(item)}" for item in block.items)


@_render.register
def _(block: Table) -> str:
    lines = [_row(block.headers), _row(["---"] * len(block.headers))]
    lines += [_row(row) for row in block.rows]
    return "\n".join(lines)


@_render.register
def _(block: Image) -> str:
    return f"![{block.caption}]({block.src})"


@_render.register
def _(block: Details) -> str:
    # GitHub renders Markdown inside <details> when blank lines surround it.
    inner = "\n\n".join(_render(b) for b in block.blocks)
    return f"<details><summary>{block.summary}</summary>\n\n{inner}\n\n</details>"


def _row(cells) -> str:
    return "| " + " | ".join(_cell(c) for c in cells) + " |"


def _cell(content) -> str:
    # A pipe would end the cell, a newline the table; both come from free
    # text such as skip reasons.
    return " ".join(inline(content).split()).replace("|", "\\|")
