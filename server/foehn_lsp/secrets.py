"""The one secret scrubber: every text that leaves Foehn for a file, a log, the model or the
person (transcripts and session files, the audit log, provider error messages, MCP results)
goes through ``Scrubber``, so a key is removed the same way everywhere.

It removes the values it is given (the configured API key, MCP servers' headers and
environment), the values of environment variables whose names say they are secrets, and
anything shaped like a common API token.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from typing import Any

TOKEN_PATTERNS = re.compile(
    r"(sk-(?:ant-)?[A-Za-z0-9_\-]{16,}|gh[pousr]_[A-Za-z0-9]{20,}|AKIA[0-9A-Z]{16}"
    r"|xox[abpr]-[A-Za-z0-9\-]{10,}|Bearer\s+[A-Za-z0-9._\-]{16,})"
)
SECRET_NAMES = re.compile(r"(?i)(api[_-]?key|token|secret|password|passwd)")


class Scrubber:
    """Removes known secret values and anything shaped like a common API token."""

    def __init__(self, secrets: Iterable[str] = (), *, min_length: int = 6) -> None:
        """``secrets`` shorter than ``min_length`` are ignored (replacing every "abc" in a
        text would hide more than it protects)."""
        self.secrets = sorted({s for s in secrets if len(s) >= min_length}, key=len, reverse=True)

    @classmethod
    def from_environment(cls, extra: Iterable[str] = ()) -> Scrubber:
        values = [v for k, v in os.environ.items() if SECRET_NAMES.search(k) and v]
        return cls([*values, *extra])

    def text(self, value: str) -> str:
        for secret in self.secrets:
            value = value.replace(secret, "***")
        return TOKEN_PATTERNS.sub("***", value)

    def data(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, Mapping):
            return {
                k: "***" if SECRET_NAMES.search(str(k)) and isinstance(v, str) else self.data(v)
                for k, v in value.items()
            }
        if isinstance(value, list | tuple):
            return [self.data(v) for v in value]
        return value
