"""The environment a sandboxed program sees: an allowlist, never a denylist.

A denylist of secret-looking names always misses one (``PGPASSWORD``, ``DATABASE_URL``,
``npm_config__authToken``, ``SSH_AUTH_SOCK``…), so a program gets only what makes a terminal
and a toolchain work: the search path the view grants, locale, terminal type, time zone and
user name, the toolchain variables whose folders the view binds, a home and a temporary folder
of its own, (for calls that may run the workspace's own programs) its virtual environment, and
``PYTHONDONTWRITEBYTECODE=1`` unless the person set it otherwise.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

PASSED = frozenset(
    {"PATH", "LANG", "LANGUAGE", "TERM", "TZ", "USER", "LOGNAME", "NO_COLOR", "COLORTERM"}
)
"""Variables passed through unchanged when set; also every ``LC_*``."""
FALLBACK_PATH = "/usr/local/bin:/usr/bin:/bin"
BYTECODE = "PYTHONDONTWRITEBYTECODE"
"""Set to ``1`` for every program unless the person's own environment sets it (empty lets
Python write ``__pycache__`` again): a bytecode cache written in the workspace can hide an edit
made in the same second with the same size, so a right fix would still fail its tests."""
READ_ONLY = {"PYTHONSAFEPATH": "1"}
"""For calls that run unasked: Python does not put the current folder (the workspace) first on
its module path, so ``python -m pip`` cannot import the repository's ``json.py``."""


def allowed_environment(
    *,
    home: str,
    search_path: Sequence[Path] | None = None,
    virtual_env: Path | None = None,
    variables: Sequence[str] = (),
    read_only: bool = False,
    extra: Mapping[str, str] | None = None,
    source: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """The environment for one program: the allowed variables of ``source`` (the server's own
    environment by default) and its toolchain ``variables``, ``PATH`` set to ``search_path``
    (else the source's, with ``virtual_env``'s ``bin`` first), ``HOME`` to ``home``,
    ``TMPDIR`` to ``/tmp``, ``VIRTUAL_ENV`` to ``virtual_env``; ``read_only`` adds
    ``READ_ONLY``; ``extra`` (which the calling tool chose, such as git's ``GIT_PAGER``) goes
    on top."""
    source = os.environ if source is None else source
    allowed = PASSED | set(variables)
    env = {k: v for k, v in source.items() if k in allowed or k.startswith("LC_")}
    env.setdefault("PATH", FALLBACK_PATH)
    env[BYTECODE] = source.get(BYTECODE, "1")
    if search_path is not None:
        env["PATH"] = os.pathsep.join(str(p) for p in search_path) or FALLBACK_PATH
    elif virtual_env is not None:
        env["PATH"] = f"{virtual_env / 'bin'}{os.pathsep}{env['PATH']}"
    env["HOME"] = home
    env["TMPDIR"] = "/tmp"
    if virtual_env is not None:
        env["VIRTUAL_ENV"] = str(virtual_env)
    if read_only:
        env.update(READ_ONLY)
    env.update(extra or {})
    return env
