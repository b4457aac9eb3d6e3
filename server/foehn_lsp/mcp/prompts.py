"""MCP prompts as slash commands: ``/mcp__SERVER__PROMPT ARGUMENTS…`` in ``foehn chat``, the
VS Code chat (``foehn.commands.list``) and ACP's available commands, named as the server's tools
are (``naming.tool_name``).

The arguments are what follows the name, split as a shell would: ``name=value`` gives an
argument by its name, and the other words fill the prompt's arguments in the order the server
declares them, the last one taking the rest of the words. A required argument left out is an
error that shows the usage. ``prompts/get`` then goes to the server through the same
connection and egress check as its tools; typing the command is the person's own say to send
its arguments there. What the server returns becomes the turn's task: each message's text (an
assistant's marked as such), embedded resources with their URI, images and audio as a line
with their type and size.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import mcp_types as types

from foehn_lsp.errors import CommandError
from foehn_lsp.mcp.naming import tool_name


class PromptUsageError(CommandError):
    """The typed arguments do not fit the prompt; the message shows its usage."""


@dataclass(frozen=True, kw_only=True)
class PromptCommand:
    name: str
    """The slash command, without ``/``: ``mcp__SERVER__PROMPT``."""
    server: str
    prompt: str
    """The server's name for the prompt."""
    description: str
    arguments: tuple[types.PromptArgument, ...] = ()

    @property
    def hint(self) -> str | None:
        if not self.arguments:
            return None
        return " ".join(a.name if a.required else f"[{a.name}]" for a in self.arguments)

    def usage(self) -> str:
        return f"/{self.name}{f' {self.hint}' if self.hint else ''}"

    def json(self) -> dict[str, str | None]:
        """As ``foehn.commands.list`` lists custom commands."""
        return {
            "name": self.name,
            "description": self.description,
            "hint": self.hint,
            "source": f"MCP server {self.server}",
        }

    def bind(self, typed: str) -> dict[str, str]:
        """The prompt's arguments from what was typed after the name."""
        try:
            words = shlex.split(typed)
        except ValueError as exc:
            raise PromptUsageError(f"{exc}; usage: {self.usage()}") from None
        names = [a.name for a in self.arguments]
        bound: dict[str, str] = {}
        rest: list[str] = []
        for word in words:
            key, equals, value = word.partition("=")
            if equals and key in names:
                bound[key] = value
            else:
                rest.append(word)
        open_names = [n for n in names if n not in bound]
        for index, name in enumerate(open_names):
            if not rest:
                break
            last = index == len(open_names) - 1
            bound[name] = " ".join(rest) if last else rest.pop(0)
            if last:
                rest = []
        if rest:
            raise PromptUsageError(f"too many words ({' '.join(rest)}); usage: {self.usage()}")
        if missing := [a.name for a in self.arguments if a.required and a.name not in bound]:
            raise PromptUsageError(f"{', '.join(missing)} missing; usage: {self.usage()}")
        return bound


def prompt_commands(server: str, prompts: Sequence[types.Prompt]) -> list[PromptCommand]:
    return [
        PromptCommand(
            name=tool_name(server, prompt.name),
            server=server,
            prompt=prompt.name,
            description=(prompt.description or prompt.title or f"The {prompt.name} prompt.")
            .strip()
            .splitlines()[0][:200]
            + f" (MCP server {server})",
            arguments=tuple(prompt.arguments or ()),
        )
        for prompt in prompts
    ]


def prompt_text(result: types.GetPromptResult) -> str:
    """The turn's task the prompt's messages make."""
    parts = []
    for message in result.messages:
        text = _content(message.content)
        parts.append(text if message.role == "user" else f"(assistant) {text}")
    return "\n\n".join(parts).strip()


def _content(block: types.ContentBlock) -> str:
    match block:
        case types.TextContent():
            return block.text
        case types.EmbeddedResource(resource=types.TextResourceContents() as resource):
            return f"[resource {resource.uri}]\n{resource.text}"
        case types.EmbeddedResource(resource=resource):
            return f"[binary resource {resource.uri} ({resource.mime_type or 'unknown type'})]"
        case types.ImageContent() | types.AudioContent():
            kind = "image" if isinstance(block, types.ImageContent) else "audio"
            return f"[{kind} {block.mime_type}, about {len(block.data) * 3 // 4:,} bytes]"
        case types.ResourceLink():
            return f"[resource link {block.uri}]"
    return f"[{getattr(block, 'type', 'unknown')} content]"


def by_name(commands: Sequence[PromptCommand]) -> Mapping[str, PromptCommand]:
    return {command.name: command for command in commands}
