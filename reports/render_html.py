"""index.html: the document blocks as one self-contained page.

No scripts, no fonts, no CDN: the page must open from a CI artifact or a
mail attachment with only the PNGs next to it (relative src).
"""

from __future__ import annotations

import re
from functools import singledispatch
from html import escape

from .blocks import Bullets, Heading, Image, Table, Text

STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1200px;
       padding: 0 1em; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; font-size: 0.85em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: left;
         vertical-align: top; }
th { background: #f2f2f2; }
tr:nth-child(even) td { background: #fafafa; }
td.ok { color: #1a7f37; font-weight: 600; }
td.bad { color: #c62828; font-weight: 600; }
td.muted { color: #777; }
figure { margin: 1em 0 2em; }
figure img { max-width: 100%; border: 1px solid #eee; }
figcaption { font-size: 0.9em; color: #555; }
.warning { background: #fff4e5; border-left: 4px solid #ff9800; padding: 0.5em 1em; }
nav li { margin: 0.1em 0; }
"""


def render_html(blocks) -> str:
    anchors = _anchors(blocks)
    body = [_heading(b, anchors[i]) if i in anchors else _render(b) for i, b in enumerate(blocks)]
    title = next((b.text for b in blocks if isinstance(b, Heading)), "ampbench report")
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            f"<title>{escape(title)}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n"
            + _contents(blocks, anchors) + "\n".join(body) + "\n</body>\n</html>\n")


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
    return f"<nav><ul>{''.join(items)}</ul></nav>\n" if items else ""


def _heading(block: Heading, anchor: str) -> str:
    return f'<h{block.level} id="{anchor}">{escape(block.text)}</h{block.level}>'


@singledispatch
def _render(block) -> str:
    raise TypeError(f"no HTML for {type(block).__name__}")


@_render.register
def _(block: Text) -> str:
    css = ' class="warning"' if block.warning else ""
    return f"<p{css}>{escape(block.text)}</p>"


@_render.register
def _(block: Bullets) -> str:
    return "<ul>" + "".join(f"<li>{escape(i)}</li>" for i in block.items) + "</ul>"


@_render.register
def _(block: Table) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in block.headers)
    rows = "".join("<tr>" + "".join(_cell(c, i in block.verdict_columns) for i, c in enumerate(row))
                   + "</tr>\n" for row in block.rows)
    return f"<table>\n<thead><tr>{head}</tr></thead>\n<tbody>\n{rows}</tbody>\n</table>"


@_render.register
def _(block: Image) -> str:
    src, caption = escape(block.src, quote=True), escape(block.caption)
    return (f'<figure><a href="{src}"><img src="{src}" alt="{caption}"></a>'
            f"<figcaption>{caption}</figcaption></figure>")


def _cell(text, is_verdict: bool) -> str:
    css = _verdict_class(str(text)) if is_verdict else None
    return f'<td class="{css}">{escape(str(text))}</td>' if css else f"<td>{escape(str(text))}</td>"


def _verdict_class(text: str):
    """Colour verdict cells so a failing case is found by eye in 100 rows."""
    if "negative control missed" in text:
        return "bad"
    if text == "pass" or text.startswith("fail (expected"):
        return "ok"
    if text in ("fail", "error"):
        return "bad"
    return "muted" if text == "skipped" else None
