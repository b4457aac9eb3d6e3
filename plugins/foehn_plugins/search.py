"""``search``: find text in the workspace's files with ripgrep, grouped by file and capped. Each
hit is a point of its file in the read ledger: a later ``read_file`` of a long file in a small
window opens at the file's first hit."""

from __future__ import annotations

import asyncio
import os
from dataclasses import replace
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, Field

from foehn_lsp import RiskLevel, Tool, ToolContext, ToolResult
from foehn_lsp.workspace.listing import check_glob, common_args, ripgrep
from foehn_plugins._matching import copied_lines
from foehn_plugins._suggest import suggestion

MAX_MATCHES = 200
MAX_COLUMNS = 300
MAX_PATTERN = 1_000
MAX_COPIED = 4
"""Lines of a pattern of several lines looked for, one at a time, until one is found."""
SEARCH_SECONDS = 30.0
REGEX_LIMITS = ["--regex-size-limit", "1M", "--dfa-size-limit", "10M"]
"""A pattern like ``a{1000}{1000}`` compiles to a program of millions of states, and matching
it against a large file burns CPU until the tool's timeout: refuse it at compile time (rg says
"compiled regex exceeds size limit") and stop any search after ``SEARCH_SECONDS``."""


class SearchArguments(BaseModel):
    pattern: Annotated[
        str, Field(min_length=1, max_length=MAX_PATTERN, description="Text (or regex) to find.")
    ]
    path: Annotated[
        str | None, Field(description="Folder or file to search; default the whole workspace.")
    ] = None
    glob: Annotated[str | None, Field(description="Only files whose names match, e.g. '*.py'.")] = (
        None
    )
    regex: Annotated[
        bool, Field(description="Treat pattern as a regular expression (Rust syntax).")
    ] = False
    case_sensitive: Annotated[bool, Field(description="Match case exactly.")] = False


async def search(arguments: SearchArguments, ctx: ToolContext) -> ToolResult:
    if arguments.glob is not None and (problem := check_glob(arguments.glob)):
        return ToolResult.failure(problem)
    if "\n" not in arguments.pattern.strip("\n"):
        return await _search(arguments, ctx)
    # Several lines, often copied out of a result: the first of them some file has, as text.
    result = ToolResult.failure("search finds text within one line; the pattern has several")
    for line in copied_lines(arguments.pattern)[:MAX_COPIED]:
        one = arguments.model_copy(update={"pattern": line, "regex": False})
        result = await _search(one, ctx)
        note = f"(search finds text within one line; of the lines given it looked for {line!r}.)"
        result = replace(result, output=f"{note}\n{result.output}")
        if result.data and result.data.get("matches"):
            break
    return result


async def _search(arguments: SearchArguments, ctx: ToolContext) -> ToolResult:
    target = ctx.workspace.resolve(arguments.path or ".")
    root = ctx.workspace.root_of(target) or ctx.workspace.root
    if arguments.glob and target.is_file():  # ripgrep searches a file it is given by name
        arguments = arguments.model_copy(update={"glob": None})
    rg = ripgrep()
    if rg is None:
        return ToolResult.failure("search is unavailable: ripgrep (rg) is not installed")
    args = [rg, "--null", "--line-number", "--no-heading", *common_args(ctx.workspace)]
    args += ["--max-columns", str(MAX_COLUMNS), "--max-columns-preview", *REGEX_LIMITS]
    args.append("--case-sensitive" if arguments.case_sensitive else "--ignore-case")
    if not arguments.regex:
        args.append("--fixed-strings")
    if arguments.glob:
        args += ["--glob", arguments.glob]
    args += ["--regexp", arguments.pattern, "--", os.fspath(target.relative_to(root)) or "."]
    process = await _ripgrep(args, root)
    assert process.stdout is not None
    assert process.stderr is not None
    groups: dict[str, list[str]] = {}
    matches = 0
    capped = slow = False
    try:
        async with asyncio.timeout(SEARCH_SECONDS):
            async for raw in process.stdout:
                name, _, rest = raw.decode("utf-8", "replace").rstrip("\n").partition("\x00")
                groups.setdefault(name.removeprefix("./"), []).append(rest)
                matches += 1
                if matches >= MAX_MATCHES:
                    capped = True
                    break
    except TimeoutError:
        slow = capped = True
    finally:
        if capped or (process.returncode is None and not process.stdout.at_eof()):
            process.kill()
        errors = (await process.stderr.read()).decode("utf-8", "replace").strip()
        errors = errors.removeprefix("rg: ")
        code = await process.wait()
    if slow and not matches:
        return ToolResult.failure(
            f"search stopped after {SEARCH_SECONDS:g} s without a match; use a simpler pattern "
            "or narrow it with path= or glob="
        )
    if not capped and code == 2 and not matches:
        return ToolResult.failure(f"search failed: {errors or 'ripgrep exited with an error'}")
    what = f"{'regex' if arguments.regex else 'text'} {arguments.pattern!r}"
    if not matches and arguments.glob and not await _names_a_file(rg, root, target, arguments, ctx):
        return await _without_glob(arguments, ctx, what)
    if not matches:
        return ToolResult.success(_nothing_found(arguments, ctx, what))
    lines = [f"{matches}{'+' if capped else ''} matches for {what} in {len(groups)} files:"]
    for name, hits in groups.items():
        lines.append(name)
        for hit in reversed(hits):  # the first hit of a file is where a read of it opens
            number, _, text = hit.partition(":")
            if number.isdigit():
                ctx.files.shown.point(root / name, int(number))
        for hit in hits:
            number, _, text = hit.partition(":")
            lines.append(f"{number:>6}: {text}")
    if capped:
        limit = f"{SEARCH_SECONDS:g} s" if slow else f"{MAX_MATCHES} matches"
        lines.append(
            f"... stopped after {limit}; narrow with path=, glob= or a more specific pattern"
        )
    return ToolResult.success("\n".join(lines), data={"matches": matches, "capped": capped})


async def _names_a_file(
    rg: str, root: Path, target: Path, arguments: SearchArguments, ctx: ToolContext
) -> bool:
    """Whether ``arguments.glob`` matches a file where the search looked."""
    assert arguments.glob is not None
    args = [rg, "--files", *common_args(ctx.workspace), "--glob", arguments.glob]
    where = os.fspath(target.relative_to(root)) or "."
    process = await _ripgrep([*args, "--", where], root, stderr=asyncio.subprocess.DEVNULL)
    assert process.stdout is not None
    try:
        async with asyncio.timeout(SEARCH_SECONDS):
            named = bool(await process.stdout.readline())
    except TimeoutError:
        named = True  # a folder too large to list in time: say nothing of the glob
    finally:
        if process.returncode is None:
            process.kill()
        await process.wait()
    return named


async def _ripgrep(
    args: list[str], root: Path, *, stderr: int = asyncio.subprocess.PIPE
) -> asyncio.subprocess.Process:
    """ripgrep run with ``args`` in ``root``, its matches (and errors) read as they come."""
    return await asyncio.create_subprocess_exec(
        *args,
        cwd=root,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=stderr,
    )


async def _without_glob(arguments: SearchArguments, ctx: ToolContext, what: str) -> ToolResult:
    """The search again without its glob, which matched no file: seen (bench: ri-callers),
    ``glob='*/c_to_f.py'`` for the callers of ``c_to_f``, "no matches", and the answer that
    nothing calls it."""
    wider = await _search(arguments.model_copy(update={"glob": None}), ctx)
    if wider.data and wider.data.get("matches"):
        note = f"(no file's name matches glob {arguments.glob!r}, so every file was searched)"
        return replace(wider, output=f"{note}\n{wider.output}")
    return ToolResult.success(_nothing_found(arguments, ctx, what, named=False))


def _nothing_found(
    arguments: SearchArguments, ctx: ToolContext, what: str, *, named: bool = True
) -> str:
    """What was searched, and the names nearest to what the model seems to look for: the glob
    if it gave one, else the pattern (a model often searches contents for a file's name).
    ``named``: the glob matched a file (else every file was searched)."""
    where = f" in {arguments.path}" if arguments.path else " in the workspace"
    glob = f" (files matching {arguments.glob!r})" if arguments.glob else ""
    if not named:
        glob = f" (no file's name matches glob {arguments.glob!r}, so every file was searched)"
    case = "case-sensitive" if arguments.case_sensitive else "ignoring case"
    text = f"no matches for {what}{where}{glob}, {case}, .gitignore honoured"
    near = suggestion(ctx.workspace, arguments.glob or arguments.pattern)
    if near:
        text += near.replace("names like it", "file names like it")
    return text


def tools() -> list[Tool]:
    return [
        Tool.from_model(
            name="search",
            description=(
                "Search file contents in the workspace (ripgrep; .gitignore honoured). Literal "
                "and case-insensitive unless regex/case_sensitive are set. Returns matching "
                f"lines with line numbers, grouped by file, at most {MAX_MATCHES}."
            ),
            model=SearchArguments,
            execute=search,
            risk=RiskLevel.READ_ONLY,
            kind="search",
        )
    ]
