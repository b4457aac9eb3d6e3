"""Custom commands: Markdown prompt files that become ``/NAME``.

``NAME.md`` in the user's ``commands`` folder (``~/.config/foehn/commands/``) and, in a trusted
workspace, ``.foehn/commands/NAME.md`` (only as approved by its content, ``workspace.trust``).
The file's text is the prompt, with ``$ARGUMENTS`` replaced by what follows the name (when the
text has no ``$ARGUMENTS``, the arguments are added after it). An optional front matter, as
Claude Code's commands have it, gives the description and the argument hint:

    ---
    description: Review the staged changes
    argument-hint: [focus]
    ---
    Review `git diff --cached` with an eye on $ARGUMENTS.

Without one, the description is the first line of the text. A file that cannot be read, a name
that is not a command name, or one a front end's built-in command takes, is reported and left
out; a workspace command never replaces the person's own.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

from foehn_lsp.config.folders import user_commands_folder
from foehn_lsp.slash import NAME, Slash, parse
from foehn_lsp.workspace.trust import approved_text

MAX_BYTES = 64 * 1024
WORKSPACE_FOLDER = ".foehn/commands"
_FRONT_MATTER = re.compile(r"\A---\s*\n(.*?)\n---\s*\n?", re.DOTALL)


@dataclass(frozen=True, kw_only=True)
class CustomCommand:
    name: str
    description: str
    hint: str | None
    """What the arguments are, for completion (``argument-hint``)."""
    text: str
    source: str
    """The file it was read from."""

    def prompt(self, arguments: str) -> str:
        """The turn's task for ``/NAME arguments``."""
        if "$ARGUMENTS" in self.text:
            return self.text.replace("$ARGUMENTS", arguments).strip()
        return f"{self.text.strip()}\n\n{arguments}".strip()

    def json(self) -> dict[str, str | None]:
        return {
            "name": self.name,
            "description": self.description,
            "hint": self.hint,
            "source": self.source,
        }


@dataclass(frozen=True, kw_only=True)
class CustomCommands:
    commands: tuple[CustomCommand, ...] = ()
    problems: tuple[str, ...] = ()

    def get(self, name: str) -> CustomCommand | None:
        return next((c for c in self.commands if c.name == name), None)

    def expand(self, text: str, parsed: Slash | None = None) -> str | None:
        """The task ``text`` stands for when it is ``/NAME …`` of a custom command."""
        slash = parsed or parse(text)
        command = self.get(slash.name) if slash is not None else None
        return command.prompt(slash.arguments) if command and slash else None


def load_commands(
    workspace_root: Path | None,
    *,
    trusted: bool,
    built_in: Collection[str] = (),
    user_folder: Path | None = None,
) -> CustomCommands:
    """The person's commands, then (trusted) the workspace's approved ones."""
    found: dict[str, CustomCommand] = {}
    problems: list[str] = []
    folder = user_folder or user_commands_folder()
    for path in _markdown_files(folder):
        try:
            raw = path.read_bytes()
            text = _text(raw, path)
        except (OSError, ValueError) as exc:
            problems.append(f"{path}: {exc}")
            continue
        _add(path, text, found, problems, built_in)
    if trusted and workspace_root is not None:
        for path in _markdown_files(workspace_root / WORKSPACE_FOLDER):
            relative = f"{WORKSPACE_FOLDER}/{path.name}"
            approved = approved_text(workspace_root, relative)
            if approved is None:
                continue
            if path.stem in found:
                problems.append(f"{path}: your own /{path.stem} wins over the workspace's")
                continue
            _add(path, approved, found, problems, built_in)
    return CustomCommands(commands=tuple(found.values()), problems=tuple(problems))


def _markdown_files(folder: Path) -> list[Path]:
    try:
        return sorted(p for p in folder.iterdir() if p.suffix == ".md" and p.is_file())
    except OSError:
        return []


def _text(raw: bytes, path: Path) -> str:
    if len(raw) > MAX_BYTES:
        raise ValueError(f"larger than {MAX_BYTES // 1024} KB; a command is a prompt")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError("not UTF-8 text") from None


def _add(
    path: Path,
    text: str,
    found: dict[str, CustomCommand],
    problems: list[str],
    built_in: Collection[str],
) -> None:
    name = path.stem
    if not NAME.fullmatch(name):
        problems.append(f"{path}: {name!r} is not a command name (letters, digits, - and _)")
        return
    if name in built_in:
        problems.append(f"{path}: /{name} is a built-in command; rename the file")
        return
    meta: dict[str, str] = {}
    if match := _FRONT_MATTER.match(text):
        for line in match[1].splitlines():
            key, colon, value = line.partition(":")
            if colon:
                meta[key.strip().lower()] = value.strip().strip("\"'")
        text = text[match.end() :]
    if not text.strip():
        problems.append(f"{path}: the command has no text")
        return
    first = next(line.strip("# ").strip() for line in text.splitlines() if line.strip())
    description = meta.get("description") or (first if len(first) <= 80 else first[:79] + "…")
    found[name] = CustomCommand(
        name=name,
        description=description,
        hint=meta.get("argument-hint") or None,
        text=text,
        source=str(path),
    )
