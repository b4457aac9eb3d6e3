"""An MCP server's question in the terminal (``foehn run``, ``foehn chat``): the server named,
its message, then one line per field of its form, and a last yes before anything is sent.

    The MCP server 'tracker' asks during mcp__tracker__file_issue:
      Which project?
    Project (the issue's project) [1] core, [2] docs (default core): 2
    Send this to 'tracker'? [y] send, [n] decline, [c] cancel:

An empty line takes the field's default, or leaves an optional field out; a value that does
not fit (``tools.elicitation.check``) is said and asked again; several choices are given as
numbers or values separated by commas. For a page the server asks the person to open (URL
mode), the address is shown and the question is whether they did. Anything but a yes at the
end declines; the end of input or Ctrl-C cancels. Nothing is sent that the person did not see.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from rich.console import Console
from rich.text import Text

from foehn_lsp.tools.elicitation import (
    ElicitationAnswer,
    ElicitationRequest,
    FormField,
    check,
    complete,
)

Read = Callable[[str], Awaitable[str]]


async def answer(request: ElicitationRequest, read: Read, err: Console) -> ElicitationAnswer:
    """Ask ``request`` field by field; ``read`` shows a prompt and returns the typed line
    (``EOFError`` at the end of input)."""
    err.print(Text(f"\n{request.title()}:", style="bold"))
    err.print(f"  {request.message}")
    try:
        if request.url is not None:
            err.print(Text(f"  It asks you to open: {request.url}", style="bold"))
            done = await read("Did you open it? [y] yes, [n] no: ")
            return ElicitationAnswer(action="accept" if _yes(done) else "decline")
        given: dict[str, Any] = {}
        for spec in request.fields:
            value = await _field(spec, read, err)
            if value is not None:
                given[spec.name] = value
        content = complete(request.fields, given)
        if isinstance(content, str):  # a required field left empty: said, not sent
            err.print(Text(f"  {content}; nothing was sent", style="red"))
            return ElicitationAnswer(action="decline")
        if content:
            err.print(json.dumps(content, indent=2, ensure_ascii=False))
        sent = await read(f"Send this to {request.server!r}? [y] send, [n] decline, [c] cancel: ")
    except EOFError:
        return ElicitationAnswer(action="cancel")
    word = sent.strip().lower()
    if _yes(word):
        return ElicitationAnswer(action="accept", content=content)
    return ElicitationAnswer(action="cancel" if word in ("c", "cancel") else "decline")


def _yes(text: str) -> bool:
    return text.strip().lower() in ("y", "yes")


async def _field(spec: FormField, read: Read, err: Console) -> Any:
    """The value typed for one field (checked), or ``None`` for an empty line."""
    while True:
        typed = (await read(_prompt(spec))).strip()
        if not typed:
            if spec.required and spec.default is None:
                err.print(Text(f"  {spec.title} is required", style="red"))
                continue
            return None
        value: Any = _choices(spec, typed) if spec.kind in ("choice", "choices") else typed
        fitted = check(spec, value)
        if isinstance(fitted, str):
            err.print(Text(f"  {spec.title}: {fitted}", style="red"))
            continue
        return fitted[0]


def _prompt(spec: FormField) -> str:
    about = f" ({spec.description})" if spec.description else ""
    if spec.kind in ("choice", "choices"):
        listed = ", ".join(f"[{n}] {label}" for n, (_, label) in enumerate(spec.options, 1))
        about += f" {listed}"
        if spec.kind == "choices":
            about += " (several: 1,3)"
    elif spec.kind == "boolean":
        about += " [y/n]"
    elif spec.format:
        about += f" ({spec.format})"
    default = f" (default {_shown(spec.default)})" if spec.default is not None else ""
    needed = "" if spec.required else " (optional)"
    return f"{spec.title}{about}{default}{needed}: "


def _shown(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        return ", ".join(map(str, value))
    return str(value)


def _choices(spec: FormField, typed: str) -> str | list[str]:
    """Numbers or values, as the field's values."""
    picked = []
    for word in [w.strip() for w in typed.split(",")] if spec.kind == "choices" else [typed]:
        if word.isdigit() and 1 <= int(word) <= len(spec.options):
            picked.append(spec.options[int(word) - 1][0])
        else:
            picked.append(word)
    return picked if spec.kind == "choices" else picked[0]
