"""An OpenAI-compatible server at a base URL with no key (Ollama, llama.cpp, vLLM on this
machine): requests go without an Authorization header, and the editor's status says so
(``keyless``), since a server that wants a key would refuse them."""

from __future__ import annotations

from foehn_lsp.config import Settings
from foehn_lsp.lsp.chat import provider_status
from foehn_lsp.providers import create_provider
from foehn_lsp.providers.messages import UserMessage
from foehn_lsp.testing import ModelServer, Turn


async def test_no_key_sends_no_authorization_header_and_the_status_says_so() -> None:
    with ModelServer() as server:
        server.script(Turn(text="ok"))
        settings = Settings(provider="openai", base_url=server.openai_url, model="llama")
        provider = create_provider(settings)
        try:
            await provider.complete([UserMessage(content="hi")], [], stream=False)
        finally:
            await provider.aclose()
        [request] = server.requests
    assert "authorization" not in {name.lower() for name in request.headers}
    assert provider_status(settings, None, False)["keyless"] is True
