"""index.html: the document blocks as one self-contained page.

No scripts, no fonts, no CDN: the page must open from a CI artifact or a
mail attachment with only the PNGs next to it (relative src), or with
nothing next to it when the figures are embedded (`--single-file`).
"""

from __future__ import annotations

import re
from functools import singledispatch
from html import escape

from .blocks import Bullets, Details, Fold, Heading, Image, Link, Table, Text

STYLE = """
body { font-family: system-ui, sans-serif; margin: 1em auto; max-width: 1200px;
       padding: 0 1em; color: #222; }
h1 { margin: 0.2em 0; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; font-size: 0.85em; max-width: 100%; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: left;
         vertical-align: top; overflow-wrap: break-word; }
th { background: #f2f2f2; }
tr:nth-child(even) td { background: #fafafa; }
tr:target td { background: #fff3c4; }
td.ok, p.ok { color: #1a7f37; font-weight: 600; }
td.bad, p.bad { color: #c62828; font-weight: 600; }
td.muted { color: #777; }
figure { margin: 1em 0 2em; }
figure img { max-width: 100%; border: 1px solid #eee; }
figcaption { font-size: 0.9em; color: #555; }
.warning { background: #fff4e5; border-left: 4px solid #ff9800; padding: 0.5em 1em; }
nav ul { display: flex; flex-wrap: wrap; gap: 0.2em 1.2em; list-style: none; padding: 0;
         margin: 0.3em 0 0.8em; font-size: 0.9em; }
details > summary { cursor: pointer; }
td details summary { color: #555; }
"""


def render_html(blocks, image_src=None) -> str:
    """image_src: src -> what the <img> loads (a data URI when embedding);
    None keeps the relative file links."""
    anchors = _anchors(blocks)
    embed = image_src or (lambda src: src)
    body = [_heading(b, anchors[i]) if i in anchors else _render(b, embed) for i, b in enumerate(blocks)]
    title = next((b.text for b in blocks if isinstance(b, Heading)), "ampbench report")
    # The contents go right under the title, one line: the summary must stay in the first screen.
    first = 1 if body and isinstance(blocks[0], Heading) else 0
    body.insert(first, _contents(blocks, anchors))
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            f"<title>{escape(title)}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n"
            + "\n".join(body) + "\n</body>\n</html>\n")


def _anchors(blocks) -> dict:
    """Block index -> unique id for every heading ("Verdicts" repeats per run)."""
    anchors, used = {}, set()
    for index, block in enumerate(blocks):
        if isinstance(block, Heading):
            base = re.sub(r"[^a-z0-9]+", "-", block.text.lower()).strip("-") or "section"
            name, n = base, 1
            while name in used:
                n += 1
                name = f"{base}-{n}"
            used.add(name)
            anchors[index] = name
    return anchors


def _contents(blocks, anchors) -> str:
    items = [f'<li><a href="#{anchors[i]}">{escape(b.text)}</a></li>'
             for i, b in enumerate(blocks) if isinstance(b, Heading) and b.level == 2]
    return f"<nav><ul>{''.join(items)}</ul></nav>" if items else ""


def _heading(block: Heading, anchor: str) -> str:
    return f'<h{block.level} id="{anchor}">{escape(block.text)}</h{block.level}>'


def inline(content, breakable: bool = False) -> str:
    """breakable: allow line breaks after / + _ (table cells: a case id has
    no spaces, and an unbreakable id column would push a table off the page)."""
    text = _breakable if breakable else escape
    if isinstance(content, Link):
        return f'<a href="{escape(content.href, quote=True)}">{text(content.text)}</a>'
    if isinstance(content, Fold):
        return f"<details><summary>{text(content.head)}</summary>{text(content.text)}</details>"
    if isinstance(content, tuple):
        return "".join(inline(part, breakable) for part in content)
    return text(str(content))


def _breakable(text: str) -> str:
    return re.sub(r"([/+_])", r"\1<wbr>", escape(text))


@singledispatch
def _render(block, embed) -> str:
    raise TypeError(f"no HTML for {type(block).__name__}")


@_render.register
def _(block: Text, embed) -> str:
    css = "warning" if block.warning else block.tone
    return f'<p class="{css}">{inline(block.text)}</p>' if css else f"<p>{inline(block.text)}</p>"


@_render.register
def _(block: Bullets, embed) -> str:
    return "<ul>" + "".join(f"<li>{inline(i)}</li>" for i in block.items) + "</ul>"


@_render.register
def _(block: Table, embed) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in block.headers)
    ids = list(block.row_ids) + [None] * (len(block.rows) - len(block.row_ids))
    rows = "".join((f'<tr id="{escape(row_id, quote=True)}">' if row_id else "<tr>")
                   + "".join(_cell(c, i in block.verdict_columns) for i, c in enumerate(row))
                   + "</tr>\n" for row, row_id in zip(block.rows, ids))
    return f"<table>\n<thead><tr>{head}</tr></thead>\n<tbody>\n{rows}</tbody>\n</table>"


@_render.register
def _(block: Image, embed) -> str:
    src, caption = escape(block.src, quote=True), escape(block.caption)
    shown = embed(block.src)
    if shown != block.src:  # embedded: a link to a data URI is blocked by browsers
        return (f'<figure><img src="{escape(shown, quote=True)}" alt="{caption}">'
                f"<figcaption>{caption}</figcaption></figure>")
    return (f'<figure><a href="{src}"><img src="{src}" alt="{caption}"></a>'
            f"<figcaption>{caption}</figcaption></figure>")


@_render.register
def _(block: Details, embed) -> str:
    inner = "\n".join(_render(b, embed) for b in block.blocks)
    return f"<details><summary>{escape(block.summary)}</summary>\n{inner}\n</details>"


def _cell(content, is_verdict: bool) -> str:
    css = _verdict_class(str(content)) if is_verdict else None
    cell = inline(content, breakable=True)
    return f'<td class="{css}">{cell}</td>' if css else f"<td>{cell}</td>"


def _verdict_class(text: str):
    """Colour verdict cells so a failing case is found by eye in 100 rows."""
    if "negative control missed" in text:
        return "bad"
    if text == "pass" or text.startswith("fail (expected"):
        return "ok"
    if text in ("fail", "error"):
        return "bad"
    return "muted" if text == "skipped" else None
