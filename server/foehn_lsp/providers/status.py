"""Which provider the settings choose, and whether its key is missing: the one rule, answered
without creating (or loading) a provider. ``create_provider`` follows it, and the front ends
that tell the person before a turn (the editor's chat view, ``foehn acp``'s auth methods, the
terminal's header) ask it here instead of reading the providers themselves."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from foehn_lsp.config.settings import PROVIDER_KEY_VARIABLES

if TYPE_CHECKING:
    from foehn_lsp.config.settings import Settings


@dataclass(frozen=True, kw_only=True)
class ProviderStatus:
    """What will answer, or what stands in the way."""

    provider: str | None
    """The provider that will answer (``local`` for the embedded model); ``None`` when no
    provider is named and the embedded model is not installed."""
    missing_key: str | None = None
    """For a hosted provider without a key: the variable to set (``MISTRAL_API_KEY``)."""
    embedded_model: str
    """The embedded model's name."""
    install_hint: str
    """How to install the embedded model."""

    @property
    def embedded(self) -> bool:
        """Whether the embedded model answers."""
        return self.provider == "local"


def provider_status(settings: Settings, *, local_available: bool | None = None) -> ProviderStatus:
    """The status for ``settings``. With no provider named, the embedded model answers if it is
    installed (``local_available``; found out here when not given). A hosted provider needs a
    key, except an OpenAI-compatible server at a base URL of its own."""
    from foehn_lsp.providers import local  # its runtime loads only with the provider

    name = settings.provider
    known = {"embedded_model": local.MODEL_NAME, "install_hint": local.INSTALL_HINT}
    if name is None:
        available = local.is_available() if local_available is None else local_available
        return ProviderStatus(provider="local" if available else None, **known)
    if (
        settings.api_key is None
        and name in PROVIDER_KEY_VARIABLES
        and not (name == "openai" and settings.base_url is not None)
    ):
        return ProviderStatus(provider=name, missing_key=PROVIDER_KEY_VARIABLES[name], **known)
    return ProviderStatus(provider=name, **known)
