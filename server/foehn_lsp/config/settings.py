"""The settings models: everything Foehn can be configured with, checked by pydantic, and the
providers' defaults. How they are read and merged, and which keys a workspace may not set, is
``layers``."""

from __future__ import annotations

import enum
import functools
import logging
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, SecretStr
from pydantic.alias_generators import to_camel

from foehn_lsp.config.mcp import McpSettings
from foehn_lsp.config.sandbox import SandboxSettings
from foehn_lsp.errors import ConfigError
from foehn_lsp.risk import RiskLevel

log = logging.getLogger(__name__)

ProviderName = Literal["mistral", "openai", "anthropic", "local", "scripted"]
CHOSEN_PROVIDERS = ("mistral", "openai", "anthropic", "local")
"""The providers a person can choose (``scripted`` is for tests and replay)."""

PROVIDER_DEFAULTS: dict[str, tuple[str, str]] = {
    # name: (base URL, model)
    "mistral": ("https://api.mistral.ai/v1", "devstral-latest"),
    "openai": ("https://api.openai.com/v1", "gpt-4.1-mini"),
    "anthropic": ("https://api.anthropic.com", "claude-sonnet-4-5"),
}
PROVIDER_KEY_VARIABLES = {
    "mistral": "MISTRAL_API_KEY",
    "openai": "OPENAI_API_KEY",
    "anthropic": "ANTHROPIC_API_KEY",
}


class ApprovalMode(enum.Enum):
    """What policy does with a call: run it, ask the person, or refuse it."""

    ALLOW = "allow"
    ASK = "ask"
    DENY = "deny"


class _Section(BaseModel):
    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="ignore", frozen=True
    )


class ApprovalSettings(_Section):
    """Risk level to mode, plus per-tool overrides (which win)."""

    read_only: ApprovalMode = ApprovalMode.ALLOW
    write: ApprovalMode = ApprovalMode.ASK
    destructive: ApprovalMode = ApprovalMode.ASK
    undefined: ApprovalMode = ApprovalMode.ASK
    tools: dict[str, ApprovalMode] = Field(default_factory=dict)
    _refusal: str | None = PrivateAttr(default=None)

    def refusing_changes(self, why: str | None = None) -> ApprovalSettings:
        """This policy with every call that could change something refused without asking:
        write, destructive and undefined calls are denied, and only per-tool overrides that
        deny survive (a per-tool 'allow' or 'ask' could otherwise let a change through).
        ``why`` says in the person's words why those calls are refused (Restricted Mode)."""
        refusing = self.model_copy(
            update={
                "write": ApprovalMode.DENY,
                "destructive": ApprovalMode.DENY,
                "undefined": ApprovalMode.DENY,
                "tools": {k: v for k, v in self.tools.items() if v is ApprovalMode.DENY},
            }
        )
        refusing._refusal = why
        return refusing

    def refusal_for(self, tool: str) -> str | None:
        """Why a denied call of ``tool`` is refused, when a front end said so and the denial is
        not the person's own per-tool override."""
        return None if tool in self.tools else self._refusal

    def mode_for(self, tool: str, risk: RiskLevel) -> ApprovalMode:
        if tool in self.tools:
            return self.tools[tool]
        return {
            RiskLevel.READ_ONLY: self.read_only,
            RiskLevel.WRITE: self.write,
            RiskLevel.DESTRUCTIVE: self.destructive,
            RiskLevel.UNDEFINED: self.undefined,
        }[risk]


class Settings(_Section):
    """Everything Foehn can be configured with."""

    provider: ProviderName | None = None
    """``None``: the embedded local model if installed, else a clear error."""
    model: str | None = None
    """``None``: the provider's default model (required with a base URL of your own)."""
    base_url: str | None = None
    api_key: SecretStr | None = None
    timeout_seconds: float = Field(default=120.0, gt=0)
    max_retries: int = Field(default=3, ge=0, le=10)
    enable_streaming: bool = True
    max_tool_iterations: int = Field(default=30, ge=1)
    token_budget: int = Field(default=500_000, ge=1000)
    """Input plus output tokens a run may spend."""
    context_window: int | None = Field(default=None, ge=2000)
    """The model's context window in tokens; ``None``: Foehn's table of known models (and no
    compaction for a model it does not know)."""
    repeat_limit: int = Field(default=3, ge=2)
    """The same call with the same arguments this many times in a row stops the run."""
    tool_timeout_seconds: float = Field(default=120.0, gt=0)
    approval: ApprovalSettings = Field(default_factory=ApprovalSettings)
    plugin_paths: tuple[str, ...] = ()
    system_message_file: str | None = None
    """Your own file whose text replaces Foehn's default system message (a relative path is
    read from the user config directory, never from the workspace)."""
    trust_workspace: bool = False
    """Trust the workspace: use its plugins, MCP servers, rules, hooks, commands, and its
    ``.foehn/system.md`` and ``AGENTS.md``, each only as the person approved its content."""
    mcp: McpSettings = Field(default_factory=McpSettings)
    """MCP servers whose tools Foehn offers the model (``[mcp.servers.NAME]``)."""
    sandbox: SandboxSettings = Field(default_factory=SandboxSettings)
    """What sandboxed programs may also read or may not, and their limits (``[sandbox]``);
    the sandbox reads it from the user's config file only."""

    def plugin_folders(self) -> list[Path]:
        """The person's folders to load plugin files from (``pluginPaths``). A trusted
        workspace's own ``.foehn/plugins/`` loads only as approved (``workspace.trust``)."""
        return [Path(p).expanduser() for p in self.plugin_paths]

    def trusted_root(self, workspace: Path | None) -> Path | None:
        """``workspace`` if the person trusts it (its approved files may then be used)."""
        return workspace if self.trust_workspace else None

    def resolved_base_url(self) -> str:
        if self.base_url:
            return self.base_url.rstrip("/")
        if self.provider in PROVIDER_DEFAULTS:
            return PROVIDER_DEFAULTS[self.provider][0]
        raise ConfigError(f"provider {self.provider!r} needs a base URL (FOEHN_BASE_URL)")

    def resolved_model(self) -> str:
        if self.model:
            return self.model
        if self.provider in PROVIDER_DEFAULTS:
            base_url, model = PROVIDER_DEFAULTS[self.provider]
            if self.base_url and self.base_url.rstrip("/") != base_url:
                # The command line refuses this outright; from a file, the environment or the
                # editor it is said once, so a server that serves one model still just works.
                warn_once(
                    f"no model is set for the server at {self.base_url}, so Foehn asks it for "
                    f"{self.provider}'s default {model!r}; name the server's model with model "
                    "(FOEHN_MODEL or --model)"
                )
            return model
        return "default"


@functools.cache
def warn_once(message: str) -> None:
    """Settings are loaded again on every change; say each problem once per process."""
    log.warning("%s", message)
