"""Foehn's exceptions, in one tree.

Who each failure is for decides how it travels. What the *model* should see (bad arguments,
unknown tool, a path outside the workspace, a denied call) never becomes an exception at the
host: it is a failed ``ToolResult``. What a *developer* should see (a malformed tool definition)
is raised at registration with every problem listed. What the *person* should see (no API key,
the provider is down) is raised here and rendered once, at the edge, as one clear message.

    FoehnError
     ├── ConfigError                 settings that cannot work; the message says what to set
     │    └── MissingApiKeyError     a hosted provider without a key
     ├── ToolDefinitionError         a tool that breaks the contract (all problems listed)
     ├── ToolInputError              a call that cannot be done as asked; becomes a failed result
     │    ├── PathRefusedError       a path the workspace resolver will not touch
     │    └── FileReadError          a file that cannot be read as text (binary, too large, …)
     ├── ProviderError               talking to the model failed
     │    ├── ProviderAuthError      401 / 403: the key was refused
     │    ├── ProviderRequestError   400 / 404 / 422: the request was refused as it stands
     │    ├── ProviderUnavailableError  429 / 5xx / connection / timeout, after the retries
     │    └── ProviderProtocolError  a body or stream that does not follow the wire format
     ├── TranscriptError             a transcript that cannot be read or replayed
     ├── TrustError                  an approval of a workspace file that cannot be made as asked
     ├── NoWorkspaceError            work that needs a workspace folder, with none open
     ├── CommandError                a slash command that cannot become a turn as typed
     └── McpServerError              an MCP server that did not start (or sign in) when asked

Provider modules catch ``httpx.HTTPError`` in exactly one place (``providers/http.py``) and
raise these ``from`` it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal


class FoehnError(Exception):
    """Base of every error Foehn raises on purpose."""


class ConfigError(FoehnError):
    """Settings that cannot work. The message names the setting or variable to change."""


class MissingApiKeyError(ConfigError):
    """A hosted provider was chosen but no API key was found."""


class ToolDefinitionError(FoehnError):
    """A tool definition that breaks the contract; ``problems`` lists every one of them."""

    def __init__(self, name: str, problems: Sequence[str]) -> None:
        self.name = name
        self.problems = list(problems)
        listed = "; ".join(self.problems)
        super().__init__(f"invalid tool {name!r}: {listed}")


class ToolInputError(FoehnError):
    """A call that cannot be done as asked. The host turns it into a failed result whose text
    is the message, so tools may raise it from anywhere instead of threading results back."""


class PathRefusedError(ToolInputError):
    """A path the workspace resolver refuses; the message says why, for the model to act on."""


class FileReadError(ToolInputError):
    """A file that cannot be read as text; the message says why and what to do instead."""


class ProviderError(FoehnError):
    """Talking to the model failed."""


class ProviderAuthError(ProviderError):
    """The provider refused the credentials (401/403)."""


class ProviderRequestError(ProviderError):
    """The provider refused the request as it stands (400/404/422); retrying will not help."""


class ProviderUnavailableError(ProviderError):
    """Rate limits, server errors, timeouts or connection failures that outlasted the retries."""


class ProviderProtocolError(ProviderError):
    """A response that does not follow the provider's wire format (bad JSON, cut-off stream)."""


class TranscriptError(FoehnError):
    """A transcript that cannot be read, or a replay that diverged from it."""


class CommandError(FoehnError):
    """A slash command that cannot become a turn as typed (an MCP prompt's arguments do not
    fit, or its server cannot answer); the message says why, and nothing was sent for it."""


class McpServerError(FoehnError):
    """An MCP server that could not be started or signed in to when that was asked for (``foehn
    mcp login``, the editor's sign-in); the message names the server and why."""


class TrustError(FoehnError):
    """An approval of a workspace's own file that cannot be made as asked: the file changed
    since it was shown, it cannot be approved (a link, not text, too large), or the approvals
    cannot be written. The message says which and what to do."""


ErrorKind = Literal[
    "missing_key", "auth", "unavailable", "request", "protocol", "config", "internal"
]
"""What kind of failure ended a turn, so each front end can offer the fix in its own words (a
command and a setting in an editor, a flag or a variable in a terminal)."""


def error_kind(exc: BaseException) -> ErrorKind:
    """The kind of ``exc`` as a turn's ``done`` event reports it."""
    match exc:
        case MissingApiKeyError():
            return "missing_key"
        case ConfigError():
            return "config"
        case ProviderAuthError():
            return "auth"
        case ProviderUnavailableError():
            return "unavailable"
        case ProviderRequestError():
            return "request"
        case ProviderProtocolError():
            return "protocol"
    return "internal"


class NoWorkspaceError(FoehnError):
    """Work asked of a front end that needs a workspace folder, where none is open."""
