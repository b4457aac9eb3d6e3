"""The environment a sandboxed program sees: an allowlist, never a denylist.

A denylist of secret-looking names always misses one (``PGPASSWORD``, ``DATABASE_URL``,
``npm_config__authToken``, ``SSH_AUTH_SOCK``…), so a program gets only what makes a terminal
and a toolchain work: the search path, locale, terminal type, time zone and user name, a home
and a temporary folder of its own, and the workspace's virtual environment if it has one.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

PASSED = frozenset(
    {"PATH", "LANG", "LANGUAGE", "TERM", "TZ", "USER", "LOGNAME", "NO_COLOR", "COLORTERM"}
)
"""Variables passed through unchanged when set; also every ``LC_*``."""
FALLBACK_PATH = "/usr/local/bin:/usr/bin:/bin"


def allowed_environment(
    *,
    home: str,
    virtual_env: Path | None = None,
    extra: Mapping[str, str] | None = None,
    source: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """The environment for one program: the allowed variables of ``source`` (the server's own
    environment by default), ``HOME`` set to ``home``, ``TMPDIR`` to ``/tmp``, the workspace's
    virtual environment first on ``PATH``, and ``extra`` (which the calling tool chose, such as
    git's ``GIT_PAGER``) on top."""
    source = os.environ if source is None else source
    env = {k: v for k, v in source.items() if k in PASSED or k.startswith("LC_")}
    env.setdefault("PATH", FALLBACK_PATH)
    env["HOME"] = home
    env["TMPDIR"] = "/tmp"
    if virtual_env is not None:
        env["VIRTUAL_ENV"] = str(virtual_env)
        env["PATH"] = f"{virtual_env / 'bin'}{os.pathsep}{env['PATH']}"
    env.update(extra or {})
    return env
