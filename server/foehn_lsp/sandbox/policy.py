"""The sandbox policies a program runs under, weakest first. Below the tool contract and the
runner, so that both (and approval, which remembers a policy) name one without importing the
other."""

from __future__ import annotations

from typing import Literal

SandboxPolicy = Literal["read-only", "workspace-write", "full"]
"""What a program may do: ``read-only`` (nothing writable but a private /tmp, no network),
``workspace-write`` (the workspace too, not ``.git/`` or ``.foehn/``; the network only as far as
the person granted it), ``full`` (the person's own rights and the network; only by an explicit
approval of that one call)."""

SANDBOX_ORDER: tuple[SandboxPolicy, ...] = ("read-only", "workspace-write", "full")
