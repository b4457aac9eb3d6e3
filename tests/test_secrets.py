"""The one scrubber, used by session files, transcripts, the audit log, provider errors and MCP
results."""

from __future__ import annotations

import pytest

from foehn_lsp.secrets import Scrubber


def test_known_values_token_shapes_and_secret_keys_are_removed() -> None:
    scrubber = Scrubber(["hunter2-password"])
    text = "key hunter2-password, token sk-ant-0123456789abcdefXYZ, gh ghp_" + "a" * 24
    assert scrubber.text(text) == "key ***, token ***, gh ***"
    assert scrubber.data({"nested": [{"api_key": "plain"}, "hunter2-password"], "n": 3}) == {
        "nested": [{"api_key": "***"}, "***"],
        "n": 3,
    }


def test_short_values_only_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    assert Scrubber(["abc"]).text("abc abc") == "abc abc"
    assert Scrubber(["abc"], min_length=1).text("abc abc") == "*** ***"
    monkeypatch.setenv("MY_SERVICE_TOKEN", "value-from-the-environment")
    assert Scrubber.from_environment().text("it is value-from-the-environment") == "it is ***"
