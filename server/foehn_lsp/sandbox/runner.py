"""The one way Foehn starts a program: under a sandbox policy, with an allowlisted
environment, through ``process.run_program``.

Policies (``SandboxPolicy``): ``read-only`` and ``workspace-write`` run inside bubblewrap (see
``bwrap``); ``full`` runs the program with the person's own rights and the network, which only
an explicit approval of that one call allows. Where no sandbox can be built (no bubblewrap, no
user namespaces, another OS, or ``FOEHN_SANDBOX=off``), every program call is scoped ``full``,
so each one asks the person: never a silent fall-back.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from foehn_lsp.sandbox import bwrap as bubblewrap
from foehn_lsp.sandbox.environment import allowed_environment
from foehn_lsp.sandbox.policy import SandboxPolicy
from foehn_lsp.sandbox.process import KEEP_HEAD, KEEP_TAIL, Finished, run_program
from foehn_lsp.workspace import Workspace

SETTING = "FOEHN_SANDBOX"
"""``off`` treats the sandbox as unavailable (every program asks); anything else detects it."""


class SandboxUnavailableError(RuntimeError):
    """A sandboxed policy was asked for where no sandbox can be built."""


@dataclass(frozen=True, kw_only=True)
class Sandbox:
    """How programs are started on this machine."""

    bwrap: str | None
    """The bubblewrap binary, or ``None`` when no sandbox is available."""
    note: str
    """One line for the person: what the sandbox is, or why there is none and what follows."""

    @property
    def available(self) -> bool:
        return self.bwrap is not None

    def policy_for(self, wanted: SandboxPolicy) -> SandboxPolicy:
        """The policy a call that wants ``wanted`` gets: ``full`` when there is no sandbox."""
        return wanted if self.available else "full"

    def view(self, workspace: Workspace, cwd: Path, policy: SandboxPolicy) -> bubblewrap.View:
        home = _home()
        hidden = [p for p in (Path("/run"), Path("/home"), home) if p and p.is_dir()]
        hidden = [p for p in hidden if p != Path("/")]
        toolchains = [
            base
            for base in {_venv_base(workspace), Path(os.path.realpath(sys.base_prefix))}
            if base is not None and any(bubblewrap.within(base, h) for h in hidden)
        ]
        return bubblewrap.View(
            roots=workspace.roots,
            writable=policy == "workspace-write",
            hidden=tuple(hidden),
            toolchains=tuple(sorted(toolchains)),
            cwd=cwd,
        )

    def environment(
        self, workspace: Workspace, extra: Mapping[str, str] | None = None
    ) -> dict[str, str]:
        home = _home()
        return allowed_environment(
            home=str(home) if home else "/tmp",
            virtual_env=_venv(workspace),
            extra=extra,
        )

    def which(self, name: str, workspace: Workspace, policy: SandboxPolicy) -> str | None:
        """The program ``name`` on the sandbox's ``PATH``, skipping folders the sandbox hides
        (so ``python3`` finds ``/usr/bin/python3`` rather than a shim in the hidden home)."""
        view = self.view(workspace, workspace.root, policy) if self._sandboxed(policy) else None
        for folder in self.environment(workspace)["PATH"].split(os.pathsep):
            if not folder:
                continue
            candidate = Path(folder, name)
            real = Path(os.path.realpath(candidate))
            if view is not None and not (view.visible(Path(folder)) and view.visible(real)):
                continue
            if real.is_file() and os.access(real, os.X_OK):
                return str(candidate)
        return None

    def hides(self, path: str, workspace: Workspace, policy: SandboxPolicy) -> bool:
        """Whether the program at ``path`` cannot be seen from inside a ``policy`` sandbox
        (it lives in the hidden home folder or under /tmp)."""
        if not self._sandboxed(policy):
            return False
        view = self.view(workspace, workspace.root, policy)
        return not (view.visible(Path(path)) and view.visible(Path(os.path.realpath(path))))

    def _sandboxed(self, policy: SandboxPolicy) -> bool:
        if policy == "full":
            return False
        if self.bwrap is None:
            raise SandboxUnavailableError(
                f"no sandbox is available ({self.note}); a {policy} call cannot run"
            )
        return True

    def command_line(
        self, argv: Sequence[str], workspace: Workspace, cwd: Path, policy: SandboxPolicy
    ) -> list[str]:
        """What is actually started to run ``argv`` under ``policy``."""
        if not self._sandboxed(policy):
            return list(argv)
        assert self.bwrap is not None
        return bubblewrap.command_line(self.bwrap, self.view(workspace, cwd, policy), argv)

    async def run(
        self,
        argv: Sequence[str],
        *,
        workspace: Workspace,
        cwd: Path,
        policy: SandboxPolicy,
        seconds: float,
        env: Mapping[str, str] | None = None,
        keep_head: int = KEEP_HEAD,
        keep_tail: int = KEEP_TAIL,
        stdin: bytes | None = None,
    ) -> Finished:
        """Run ``argv`` in ``cwd`` under ``policy``; ``env`` adds to the allowlisted
        environment; ``stdin`` is the program's input (else it has none). Raises
        ``SandboxUnavailableError`` for a sandboxed policy without a sandbox (the caller's
        scope should have said ``full``)."""
        started = await run_program(
            self.command_line(argv, workspace, cwd, policy),
            cwd=cwd,
            seconds=seconds,
            keep_head=keep_head,
            keep_tail=keep_tail,
            env=self.environment(workspace, env),
            stdin=stdin,
        )
        return Finished(**{**started.__dict__, "argv": tuple(argv), "sandbox": policy})


def _home() -> Path | None:
    home = os.environ.get("HOME") or os.path.expanduser("~")
    return Path(os.path.realpath(home)) if home and home != "~" else None


def _venv(workspace: Workspace) -> Path | None:
    for name in (".venv", "venv"):
        folder = workspace.root / name
        if (folder / "pyvenv.cfg").is_file() and not folder.is_symlink():
            return folder
    return None


def _venv_base(workspace: Workspace) -> Path | None:
    """The Python installation the workspace's virtual environment was made from (its
    ``pyvenv.cfg`` ``home``), which must be readable for the environment's python to start."""
    venv = _venv(workspace)
    if venv is None:
        return None
    try:
        lines = (venv / "pyvenv.cfg").read_text("utf-8", "replace").splitlines()
    except OSError:
        return None
    for line in lines:
        key, _, value = line.partition("=")
        if key.strip() == "home" and value.strip():
            return Path(os.path.realpath(value.strip())).parent
    return None


@cache
def _detect(setting: str) -> Sandbox:
    if setting == "off":
        return Sandbox(
            bwrap=None,
            note=f"the sandbox is turned off ({SETTING}=off): every program Foehn runs asks first",
        )
    if not sys.platform.startswith("linux"):
        return Sandbox(
            bwrap=None,
            note=f"no sandbox on {sys.platform} (Foehn sandboxes programs on Linux only): "
            "every program Foehn runs asks first",
        )
    problems = []
    for path, origin in bubblewrap.candidates():
        problem = bubblewrap.probe(path)
        if problem is None:
            return Sandbox(bwrap=path, note=f"programs run in a bubblewrap sandbox ({origin})")
        problems.append(problem)
    why = "; ".join(problems) or "bubblewrap is not installed"
    return Sandbox(bwrap=None, note=f"no sandbox ({why}): every program Foehn runs asks first")


def system_sandbox() -> Sandbox:
    """This machine's sandbox, detected once (per value of ``FOEHN_SANDBOX``)."""
    return _detect(os.environ.get(SETTING, "auto").strip().lower())
