"""Plugin discovery: entry points in the group ``foehn_lsp.plugins``, ``*.py`` files from the
person's plugin folders, and a trusted workspace's plugin files as the person approved them
(``workspace.trust.approved_plugins``: imported from the approved text, never read again from the
file). Each plugin is a callable (a module-level ``tools()`` for files) that returns tools.
A plugin that fails to import, raises, or returns anything invalid is reported with every
problem at once and skipped whole; the others load.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import logging
import os
import sys
import types
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from foehn_lsp.tools.contract import Tool
from foehn_lsp.tools.registry import ToolRegistry, check_tool
from foehn_lsp.workspace.trust import ApprovedPlugin

log = logging.getLogger(__name__)

ENTRY_POINT_GROUP = "foehn_lsp.plugins"


@dataclass(frozen=True, kw_only=True)
class PluginProblem:
    """Why one plugin was skipped."""

    plugin: str
    """'entry point fs (foehn_plugins.fs:tools)' or the plugin file's path."""
    problems: tuple[str, ...]

    def __str__(self) -> str:
        return f"{self.plugin}: " + "; ".join(self.problems)


class ServerCommand(Protocol):
    """A slash command a server offers (an MCP prompt), as front ends list it."""

    @property
    def name(self) -> str: ...

    @property
    def description(self) -> str: ...

    @property
    def hint(self) -> str | None: ...

    def usage(self) -> str: ...

    def json(self) -> dict[str, str | None]: ...


class ToolServers(Protocol):
    """Programs whose tools are in a registry beside the plugins' (the MCP servers,
    ``foehn_lsp.mcp.tools.McpCatalogue``), seen from here without depending on them."""

    @property
    def problems(self) -> Sequence[object]:
        """What went wrong with the servers, in words (``str``), live."""
        ...

    def catalogue_fields(self, name: str) -> dict[str, Any]:
        """Extra fields for tool ``name``'s catalogue entry; ``{}`` for a tool not served."""
        ...

    def close(self) -> None:
        """Stop the servers."""
        ...

    def prompt_commands(self) -> Sequence[ServerCommand]:
        """The servers' prompts, as slash commands."""
        ...

    async def expand(self, text: str) -> str | None:
        """The task ``text`` stands for when it is one of ``prompt_commands`` (asked of its
        server), else ``None``; ``CommandError`` when it cannot be had."""
        ...


@dataclass(kw_only=True)
class LoadedTools:
    """The tools that loaded (in a registry), the plugins that were skipped and why, and the
    programs serving some of the tools."""

    registry: ToolRegistry
    problems: list[PluginProblem] = field(default_factory=list)
    servers: ToolServers | None = None
    """The MCP servers whose tools are in the registry (``foehn_lsp.mcp.tools.add_servers``)."""


def discover(
    *,
    folders: Sequence[Path] = (),
    approved: Sequence[ApprovedPlugin] = (),
    entry_points: bool = True,
    default_timeout: float = 120.0,
) -> LoadedTools:
    """Load every plugin; never raises for a broken one. ``approved`` are a workspace's plugin
    files with the content the person approved."""
    found = LoadedTools(registry=ToolRegistry(default_timeout=default_timeout))
    sources: list[tuple[str, Any]] = []
    if entry_points:
        for point in sorted(
            importlib.metadata.entry_points(group=ENTRY_POINT_GROUP), key=lambda p: p.name
        ):
            sources.append((f"entry point {point.name} ({point.value})", point))
    for folder in folders:
        if not folder.is_dir():
            found.problems.append(
                PluginProblem(plugin=str(folder), problems=("plugin folder does not exist",))
            )
            continue
        for file in sorted(folder.glob("*.py")):
            if not file.name.startswith("_"):
                sources.append((str(file), file))
    sources += [(str(plugin.path), plugin) for plugin in approved]
    for label, source in sources:
        tools, problems = _load(label, source)
        problems = problems or _duplicates(found.registry, tools)
        if problems:
            problem = PluginProblem(plugin=label, problems=tuple(problems))
            log.warning("plugin skipped: %s", problem)
            found.problems.append(problem)
            continue
        for tool in tools:
            found.registry.register(tool)
    return found


def _load(label: str, source: Any) -> tuple[list[Tool], list[str]]:
    try:
        if isinstance(source, Path | ApprovedPlugin):
            module = _import_file(source) if isinstance(source, Path) else _import_text(source)
            provider = getattr(module, "tools", None)
            if provider is None:
                return [], ["defines no module-level tools() function"]
        else:
            provider = source.load()
        if not callable(provider):
            return [], [f"{type(provider).__name__} is not callable; expected tools()"]
        returned = provider()
    except Exception as exc:
        log.debug("plugin %s failed", label, exc_info=True)
        return [], [f"failed to load: {type(exc).__name__}: {exc}"]
    if isinstance(returned, Tool) or not isinstance(returned, Iterable):
        return [], [f"tools() must return a list of tools, got {type(returned).__name__}"]
    tools = list(returned)
    problems = []
    for index, tool in enumerate(tools):
        name = getattr(tool, "name", f"#{index}")
        problems += [f"tool {name!r}: {problem}" for problem in check_tool(tool)]
    names = [str(getattr(tool, "name", "?")) for tool in tools]
    problems += [
        f"tool {n!r}: returned twice" for n in sorted({n for n in names if names.count(n) > 1})
    ]
    return tools, problems


def _duplicates(registry: ToolRegistry, tools: list[Tool]) -> list[str]:
    return [
        f"tool {tool.name!r}: another plugin already provides a tool with this name"
        for tool in tools
        if tool.name in registry
    ]


def _module_name(path: Path) -> str:
    digest = hashlib.sha256(os.fsencode(path.resolve())).hexdigest()[:12]
    return f"foehn_plugin_{path.stem}_{digest}"


def _import_file(path: Path) -> Any:
    name = _module_name(path)
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def _import_text(plugin: ApprovedPlugin) -> Any:
    """The module made from the approved text itself: the file may have changed since."""
    name = _module_name(plugin.path)
    code = compile(plugin.text, str(plugin.path), "exec", dont_inherit=True)
    module = types.ModuleType(name)
    module.__file__ = str(plugin.path)
    sys.modules[name] = module
    try:
        exec(code, module.__dict__)
    except BaseException:
        del sys.modules[name]
        raise
    return module
