"""The MCP servers Foehn uses, from the terminal: ``foehn mcp list``, ``foehn mcp login NAME``,
``foehn mcp logout NAME``; and how the terminal lets the person sign in (``terminal_sign_in``:
the page's address printed on stderr, and opened in the desktop's browser where there is one).

``list`` starts no server: it shows each one configured (the person's ``config.toml`` and, in a
trusted workspace, its approved ``.vscode/mcp.json``), how Foehn reaches it, and for an HTTP
server what is kept of its sign-in and when the token expires. ``login`` signs in again, asking
in the browser even when a token is kept, and starts the server with the new token (what was
kept stays kept unless the new sign-in succeeds); ``logout`` deletes what is kept.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import json
import os
import sys
import webbrowser
from pathlib import Path
from typing import Any

from foehn_lsp.cli.args import EXIT_ERROR, EXIT_OK, EXIT_USAGE, folder
from foehn_lsp.config import Settings, load_settings
from foehn_lsp.config.mcp import McpServerConfig
from foehn_lsp.mcp.consent import SignIn
from foehn_lsp.mcp.stores import SecretStore, default_store


def terminal_sign_in(*, ask: bool) -> SignIn:
    """Signing in from a terminal: with ``ask``, the page's address on stderr (and opened in
    the desktop's browser, where there is one); without, nobody is asked."""
    return SignIn(store=default_store(), show=_show_in_terminal if ask else None)


async def _show_in_terminal(server: str, url: str) -> None:
    print(
        f"foehn: MCP server {server!r} asks you to sign in. Open this page in your browser:\n"
        f"  {url}",
        file=sys.stderr,
        flush=True,
    )
    if _desktop():
        await asyncio.to_thread(webbrowser.open, url)


def _desktop() -> bool:
    """A graphical browser can be opened (never a text one that would take the terminal)."""
    if sys.platform in ("darwin", "win32"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def configured(settings: Settings, root: Path | None) -> dict[str, McpServerConfig]:
    """The servers Foehn would use in ``root``: the person's, then the trusted workspace's."""
    from foehn_lsp.config.mcp import WORKSPACE_SERVERS, workspace_servers
    from foehn_lsp.workspace.trust import approved_text

    servers = dict(settings.mcp.servers)
    if root is not None and settings.trust_workspace:
        text = approved_text(root, WORKSPACE_SERVERS)
        if text is not None:
            found, _ = workspace_servers(text, str(root / WORKSPACE_SERVERS))
            servers = {**found, **servers}
    return servers


def list_command(args: argparse.Namespace) -> int:
    settings = load_settings()
    servers = configured(settings, folder(args.workspace))
    store = default_store()
    entries = [asyncio.run(_entry(name, config, store)) for name, config in servers.items()]
    if args.json:
        json.dump({"servers": entries, "tokens_kept_in": store.description}, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return EXIT_OK
    if not entries:
        print("No MCP servers are configured ([mcp.servers.NAME] in config.toml).")
        return EXIT_OK
    for entry in entries:
        where = entry["url"] or entry["command"]
        state = "" if entry["enabled"] else " (disabled)"
        print(f"{entry['name']}{state}: {entry['transport']} {where}")
        print(f"    {entry['sign_in']}")
    print(f"Tokens are kept in {store.description}.")
    return EXIT_OK


async def _entry(name: str, config: McpServerConfig, store: SecretStore) -> dict[str, Any]:
    from foehn_lsp.mcp.tokens import Credentials

    entry: dict[str, Any] = {
        "name": name,
        "transport": config.transport,
        "url": config.url,
        "command": " ".join([config.command, *config.args]) if config.command else None,
        "enabled": config.enabled,
        "signed_in": False,
        "expires_at": None,
    }
    if config.url is None:
        entry["sign_in"] = "started by Foehn; no sign-in"
        return entry
    if not config.signs_in:
        entry["sign_in"] = "uses the Authorization header of its entry; Foehn does not sign in"
        return entry
    state = await Credentials(store, name, config.url).state()
    entry["signed_in"] = state.tokens
    entry["expires_at"] = state.expires_at
    if not state.tokens:
        entry["sign_in"] = f"not signed in (sign in when it asks, or: foehn mcp login {name})"
    elif state.expires_at is None:
        entry["sign_in"] = "signed in; the token does not expire"
    else:
        when = datetime.datetime.fromtimestamp(state.expires_at).astimezone()
        shown = when.isoformat(timespec="minutes")
        past = when < datetime.datetime.now().astimezone()
        renew = " (it is renewed when needed)" if state.refreshable else ""
        entry["sign_in"] = f"signed in; the token {'expired' if past else 'expires'} {shown}{renew}"
    return entry


def login_command(args: argparse.Namespace) -> int:
    from foehn_lsp.mcp.client import McpHub, ServerUnavailableError

    settings = load_settings()
    root = folder(args.workspace)
    config = _http_server(settings, root, args.name)
    if config is None:
        return EXIT_USAGE
    hub = McpHub(
        {args.name: config},
        root=root or Path.cwd(),
        on_listing=lambda server, listing: None,
        sign_in=terminal_sign_in(ask=True),
    )
    try:
        print(f"foehn: {hub.login(args.name)}", file=sys.stderr)
        return EXIT_OK
    except ServerUnavailableError as exc:
        print(f"foehn: {exc}", file=sys.stderr)
        return EXIT_ERROR
    finally:
        hub.close()


def logout_command(args: argparse.Namespace) -> int:
    from foehn_lsp.mcp.tokens import Credentials

    settings = load_settings()
    config = _http_server(settings, folder(args.workspace), args.name)
    if config is None or config.url is None:
        return EXIT_USAGE
    store = default_store()
    had = asyncio.run(Credentials(store, args.name, config.url).forget())
    said = "deleted what was kept of its sign-in" if had else "nothing was kept of its sign-in"
    print(f"foehn: MCP server {args.name!r}: {said} ({store.description})", file=sys.stderr)
    return EXIT_OK


def _http_server(settings: Settings, root: Path | None, name: str) -> McpServerConfig | None:
    servers = configured(settings, root)
    config = servers.get(name)
    if config is None:
        known = ", ".join(servers) or "none"
        print(f"foehn: no MCP server {name!r} is configured (configured: {known})", file=sys.stderr)
        return None
    if not config.signs_in:
        why = "is started by Foehn" if config.url is None else "uses its own Authorization header"
        print(f"foehn: MCP server {name!r} {why}; there is no sign-in", file=sys.stderr)
        return None
    return config


def add_actions(mcp: argparse.ArgumentParser) -> None:
    """``list``, ``login NAME`` and ``logout NAME`` under ``foehn mcp``."""
    actions = mcp.add_subparsers(dest="mcp_action", metavar="ACTION")
    listing = actions.add_parser(
        "list", help="the MCP servers Foehn uses: how it reaches them, sign-in, expiry"
    )
    listing.add_argument("--workspace", metavar="DIR", help="workspace root (default: .)")
    listing.add_argument("--json", action="store_true", help="machine-readable output")
    listing.set_defaults(handler=list_command)
    login = actions.add_parser("login", help="sign in to an MCP server in your browser")
    login.add_argument("name", help="the server's name in [mcp.servers]")
    login.add_argument("--workspace", metavar="DIR", help="workspace root (default: .)")
    login.set_defaults(handler=login_command)
    logout = actions.add_parser("logout", help="delete what is kept of a sign-in")
    logout.add_argument("name", help="the server's name in [mcp.servers]")
    logout.add_argument("--workspace", metavar="DIR", help="workspace root (default: .)")
    logout.set_defaults(handler=logout_command)
