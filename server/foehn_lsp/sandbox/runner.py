"""The one way Foehn starts a program: under a sandbox policy, in a granted view, with limits
and an allowlisted environment, through ``process.run_program``.

Policies (``SandboxPolicy``): ``read-only`` and ``workspace-write`` run inside bubblewrap (see
``view`` for what they see and ``bwrap`` for how; a read-only call sees the workspace through a
throwaway writable layer where bubblewrap can make one, so its caches work and vanish);
``full`` runs the program with the person's own rights and the network, which only an explicit
approval of that one call allows. A ``workspace-write`` call given ``network`` (an ``Access``)
reaches the domains it grants through its own proxy (``network``), and nothing else; a
``read-only`` call never gets the network. Where no sandbox can be built (no bubblewrap, no user
namespaces, another OS, or ``FOEHN_SANDBOX=off``), every program call is scoped ``full``, so
each one asks the person: never a silent fall-back. Without util-linux's ``prlimit`` programs
are sandboxed as ever; only ``launch`` (an MCP server set to run sandboxed, whose limits
``prlimit`` sets) refuses.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import os
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from foehn_lsp.config.sandbox import user_sandbox_settings
from foehn_lsp.errors import ConfigError
from foehn_lsp.sandbox import bwrap as bubblewrap
from foehn_lsp.sandbox import limits as limiting
from foehn_lsp.sandbox import view as viewing
from foehn_lsp.sandbox.environment import allowed_environment
from foehn_lsp.sandbox.handshake import Handshake, LimitsNotSetError
from foehn_lsp.sandbox.network import Access, NetworkUnavailableError, Served, bridge, serving
from foehn_lsp.sandbox.placeholders import Placeholders
from foehn_lsp.sandbox.policy import SandboxPolicy
from foehn_lsp.sandbox.process import KEEP_HEAD, KEEP_TAIL, Finished, run_program
from foehn_lsp.workspace import Workspace

SETTING = "FOEHN_SANDBOX"
"""``off`` treats the sandbox as unavailable (every program asks); anything else detects it."""
NO_PRLIMIT = (
    "util-linux's prlimit is not installed, so an MCP server set to run sandboxed (prlimit "
    "sets its limits) cannot start"
)


class SandboxUnavailableError(RuntimeError):
    """A sandboxed policy was asked for where no sandbox can be built."""


class SandboxViewError(SandboxUnavailableError):
    """The view for a call cannot be built as granted (bad settings, a protected name that is a
    symbolic link, bubblewrap refusing a path): the call does not run (whoever handles a
    missing sandbox handles this too)."""


class ProgramStartError(OSError):
    """The program could not be started (no such file, an argument list over the system's
    limit, no descriptors left...): nothing ran."""


@dataclass(frozen=True, kw_only=True)
class Sandbox:
    """How programs are started on this machine."""

    bwrap: str | None
    """The bubblewrap binary, or ``None`` when no sandbox is available."""
    note: str
    """One line for the person: what the sandbox is, or why there is none and what follows."""
    prlimit: str | None = None
    """util-linux's ``prlimit``, which sets the limits inside the sandbox of a program that
    someone else starts (``launch``); ``run`` sets them itself (``handshake``). ``None``: not
    installed, and ``launch`` refuses."""
    layer: bool = False
    """Whether read-only calls see the workspace through a throwaway writable layer (an overlay
    bubblewrap can make here), so that caches they write work and vanish; else it is plainly
    read-only (the note says why)."""
    placeholders: Placeholders = field(default_factory=Placeholders, compare=False)

    @property
    def available(self) -> bool:
        return self.bwrap is not None

    def policy_for(self, wanted: SandboxPolicy) -> SandboxPolicy:
        """The policy a call that wants ``wanted`` gets: ``full`` when there is no sandbox."""
        return wanted if self.available else "full"

    def machine(self) -> viewing.Machine:
        """What every sandboxed program sees besides its workspace. Raises
        ``SandboxViewError`` when the ``[sandbox]`` settings cannot be read."""
        try:
            return viewing.machine(user_sandbox_settings())
        except ConfigError as exc:
            raise SandboxViewError(f"{exc}; no sandboxed program runs until it is fixed") from None

    def view(
        self,
        workspace: Workspace,
        cwd: Path,
        policy: SandboxPolicy,
        unprotected: Sequence[str] = (),
        *,
        readable: Sequence[Path] = (),
        layer: bool = True,
    ) -> viewing.View:
        """One call's view; ``readable``: paths bound read-only for it alone; ``layer``: a
        read-only view uses the throwaway layer where this machine has one."""
        return viewing.view(
            self.machine(),
            workspace.roots,
            cwd,
            writable=policy != "read-only",
            unprotected=unprotected,
            layer=layer and self.layer,
            readable=readable,
        )

    def environment(
        self,
        workspace: Workspace,
        extra: Mapping[str, str] | None = None,
        policy: SandboxPolicy = "workspace-write",
    ) -> dict[str, str]:
        """The environment of a program run under ``policy``: ``PATH`` is the view's
        (without the workspace's programs for ``read-only``). Where no view can be built (no
        sandbox, or settings that cannot be read, which stop the call itself), the person's
        own ``PATH`` with the workspace's ``.venv`` first."""
        try:
            seen = self.view(workspace, workspace.root, policy) if self._usable(policy) else None
        except SandboxViewError:
            seen = None
        return _environment(workspace, seen, extra, policy)

    def which(
        self,
        name: str,
        workspace: Workspace,
        policy: SandboxPolicy,
        *,
        workspace_programs: bool | None = None,
    ) -> str | None:
        """The program ``name`` as a ``policy`` call finds it: on the view's ``PATH``
        (unsandboxed, the person's own). ``workspace_programs``: whether the workspace's own
        programs count (its ``.venv`` first); by default only for calls that may write."""
        own = policy != "read-only" if workspace_programs is None else workspace_programs
        if not self._sandboxed(policy):
            found = _which_unsandboxed(name, workspace, own)
            return None if found is None else str(found)
        seen = self.view(workspace, workspace.root, policy)
        found = seen.which(name, workspace=own)
        return None if found is None else str(found)

    def hides(
        self,
        path: str,
        workspace: Workspace,
        policy: SandboxPolicy,
        readable: Sequence[Path] = (),
    ) -> bool:
        """Whether the program at ``path`` cannot be seen from inside a ``policy`` sandbox
        (that binds ``readable`` for the call)."""
        if not self._sandboxed(policy):
            return False
        seen = self.view(workspace, workspace.root, policy, readable=readable)
        return not seen.visible(Path(os.path.realpath(path)))

    def _usable(self, policy: SandboxPolicy) -> bool:
        return policy != "full" and self.available

    def _sandboxed(self, policy: SandboxPolicy) -> bool:
        if policy == "full":
            return False
        if self.bwrap is None:
            raise SandboxUnavailableError(
                f"no sandbox is available ({self.note}); a {policy} call cannot run"
            )
        return True

    @contextlib.contextmanager
    def launch(
        self,
        argv: Sequence[str],
        workspace: Workspace,
        cwd: Path,
        policy: SandboxPolicy,
        unprotected: Sequence[str] = (),
        network: Access | None = None,
    ) -> Iterator[list[str]]:
        """What is actually started to run ``argv`` under ``policy``, by whoever starts it
        (an MCP server's SDK): the limits are set by a launcher inside the sandbox. Valid while
        the block runs (the placeholders for missing protected names, the call's pids cgroup
        and its network proxy exist until it ends); with ``network`` the program's environment
        must add ``network.environment()``. Raises ``SandboxUnavailableError`` when there is no
        sandbox or no ``prlimit`` to set the limits, ``SandboxViewError`` when the view (or the
        network proxy) cannot be built."""
        if self._sandboxed(policy) and self.prlimit is None:
            raise SandboxUnavailableError(NO_PRLIMIT)
        with self._prepared(
            argv,
            workspace,
            cwd,
            policy,
            unprotected,
            self.prlimit,
            readable=(),
            layer=True,
            network=network,
        ) as ready:
            yield ready.command

    @contextlib.contextmanager
    def _prepared(
        self,
        argv: Sequence[str],
        workspace: Workspace,
        cwd: Path,
        policy: SandboxPolicy,
        unprotected: Sequence[str],
        launcher: str | None,
        *,
        readable: Sequence[Path],
        layer: bool,
        network: Access | None = None,
    ) -> Iterator[_Prepared]:
        """The command for ``argv`` under ``policy``, its limits set inside the sandbox by
        ``launcher`` (``prlimit``) or, when it is ``None``, by the handshake that ``run``
        makes with bubblewrap; behind the network bridge, with the proxy's socket bound for
        this call alone, when ``network`` grants anything (never for ``read-only``)."""
        if not self._sandboxed(policy):
            yield _Prepared(command=list(argv))
            return
        assert self.bwrap is not None
        seen = self.view(workspace, cwd, policy, unprotected, readable=readable, layer=layer)
        if seen.problems:
            raise SandboxViewError("; ".join(seen.problems))
        limits = seen.machine.limits
        processes = limiting.process_limit().by == "namespace"
        with contextlib.ExitStack() as held:
            try:
                held.enter_context(self.placeholders.holding(seen.missing, seen.protected))
                group = held.enter_context(limiting.call_cgroup(limits))
            except OSError as exc:
                raise SandboxViewError(str(exc)) from None
            served = None
            if network is not None and policy != "read-only" and not network.grant.empty:
                served = held.enter_context(_proxy(seen, network))
                argv = bridge.command(served.socket, argv)
                seen = dataclasses.replace(seen, readable=(*seen.readable, served.socket))
            if launcher is None:
                shake = Handshake(limits, group=group, processes=processes)
                held.callback(shake.close)
                command = bubblewrap.command_line(self.bwrap, seen, argv, shake.arguments())
                yield _Prepared(command=command, view=seen, handshake=shake, served=served)
                return
            inside = [*limits.launcher(launcher, processes=processes), *argv]
            command = bubblewrap.command_line(self.bwrap, seen, inside)
            joined = command if group is None else limiting.joining(group, command)
            yield _Prepared(command=joined, view=seen, served=served)

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
        unprotected: Sequence[str] = (),
        stdin: bytes | None = None,
        readable: Sequence[Path] = (),
        layer: bool = True,
        network: Access | None = None,
    ) -> Finished:
        """Run ``argv`` in ``cwd`` under ``policy``; ``env`` adds to the allowlisted
        environment; ``stdin`` is the program's input (else it has none); ``readable``: real
        paths bound read-only for this call alone (a hook's own files); ``network``: what a
        ``workspace-write`` call may reach (its attempts are the result's ``network``; a proxy
        or bridge that cannot start is a ``SandboxViewError``). A read-only call sees
        the workspace through the throwaway layer where there is one; where bubblewrap cannot
        make it for this workspace (its file system refuses an overlay) the call runs again,
        plainly read-only (nothing ran the first time). Raises
        ``SandboxUnavailableError`` for a sandboxed policy without a sandbox (the caller's
        scope should have said ``full``), ``SandboxViewError`` for a view that cannot be
        built or limits that cannot be set, and ``ProgramStartError`` for a program (or
        bubblewrap) that cannot be started; a program stopped by a limit gets ``limit``."""
        once = functools.partial(
            self._run_once,
            argv,
            workspace=workspace,
            cwd=cwd,
            policy=policy,
            seconds=seconds,
            env=env,
            keep_head=keep_head,
            keep_tail=keep_tail,
            unprotected=unprotected,
            stdin=stdin,
            readable=readable,
            network=network,
        )
        try:
            return await once(layer=layer)
        except _OverlayRefused:
            return await once(layer=False)

    async def _run_once(
        self,
        argv: Sequence[str],
        *,
        workspace: Workspace,
        cwd: Path,
        policy: SandboxPolicy,
        seconds: float,
        env: Mapping[str, str] | None,
        keep_head: int,
        keep_tail: int,
        unprotected: Sequence[str],
        stdin: bytes | None,
        readable: Sequence[Path],
        layer: bool,
        network: Access | None,
    ) -> Finished:
        """``run`` once; ``_OverlayRefused`` where the layer could not be made (nothing ran)."""
        prepared = self._prepared(
            argv,
            workspace,
            cwd,
            policy,
            unprotected,
            None,
            readable=readable,
            layer=layer,
            network=network,
        )
        with prepared as ready:
            environment = _environment(workspace, ready.view, env, policy)
            if ready.served is not None:
                environment |= bridge.environment()
            shake = ready.handshake
            try:
                started = await run_program(
                    ready.command,
                    cwd=cwd,
                    seconds=seconds,
                    keep_head=keep_head,
                    keep_tail=keep_tail,
                    env=environment,
                    stdin=stdin,
                    pass_fds=() if shake is None else shake.child_fds,
                    on_start=None if shake is None else shake.release,
                    on_kill=None if shake is None else shake.kill,
                )
            except LimitsNotSetError as exc:
                raise SandboxViewError(
                    f"the sandbox's limits could not be set, so nothing ran: {exc}"
                ) from None
            except OSError as exc:
                raise _not_started(argv, exc, sandboxed=ready.view is not None) from None
        attempts = () if ready.served is None else tuple(ready.served.attempts)
        finished = Finished(
            **{**started.__dict__, "argv": tuple(argv), "sandbox": policy, "network": attempts}
        )
        if ready.view is None:
            return finished
        if problem := bubblewrap.setup_problem(finished.exit_code, finished.output):
            if ready.view.layer and "overlay" in problem:
                raise _OverlayRefused(problem)
            raise SandboxViewError(f"the sandbox could not be built, so nothing ran: {problem}")
        if ready.served and (problem := bridge.setup_problem(finished.exit_code, finished.output)):
            raise SandboxViewError(f"{problem}; nothing ran")
        limit = ready.view.machine.limits.named(finished.exit_code, finished.output)
        return Finished(**{**finished.__dict__, "limit": limit}) if limit else finished


class _OverlayRefused(Exception):
    """bubblewrap could not make the throwaway layer over this workspace (its file system
    refuses an overlay): nothing ran, and the call may run plainly read-only."""


def _environment(
    workspace: Workspace,
    seen: viewing.View | None,
    extra: Mapping[str, str] | None,
    policy: SandboxPolicy,
) -> dict[str, str]:
    """``Sandbox.environment`` for the view ``seen`` (``None``: no view)."""
    if seen is None:
        home = viewing.home_folder(os.environ)
        venv = viewing.workspace_venv(workspace.root)
        return allowed_environment(home=str(home or "/tmp"), virtual_env=venv, extra=extra)
    read_only = policy == "read-only"
    return allowed_environment(
        home=str(seen.machine.home or "/tmp"),
        search_path=seen.search_path(workspace=not read_only),
        virtual_env=None if read_only else seen.venv,
        variables=seen.machine.variables,
        read_only=read_only,
        extra=extra,
    )


def _not_started(argv: Sequence[str], exc: OSError, *, sandboxed: bool) -> ProgramStartError:
    """What to say of ``argv`` when starting it (or the bubblewrap that runs it) failed."""
    reason = exc.strerror or str(exc)
    if sandboxed:
        return ProgramStartError(
            f"{argv[0]} could not be started: bubblewrap, which runs it in the sandbox, could "
            f"not be started ({reason}), so nothing ran"
        )
    return ProgramStartError(f"{argv[0]} could not be started ({reason}), so nothing ran")


@dataclass(frozen=True, kw_only=True)
class _Prepared:
    command: list[str]
    view: viewing.View | None = None
    """The view it runs in (``None`` unsandboxed)."""
    handshake: Handshake | None = None
    """Set when the limits are set from outside, once bubblewrap has started."""
    served: Served | None = None
    """The call's network proxy, when it has one."""


@contextlib.contextmanager
def _proxy(seen: viewing.View, network: Access) -> Iterator[Served]:
    """The call's proxy, once it is sure the bridge can run in ``seen``; fails closed, with
    one line, when either cannot."""
    python = bridge.interpreter()
    if not seen.visible(python):
        raise SandboxViewError(
            f"the network bridge runs Foehn's own Python ({python}), which this sandbox does "
            "not show, so the call cannot reach the network; nothing ran"
        )
    try:
        with serving(network) as served:
            yield served
    except NetworkUnavailableError as exc:
        raise SandboxViewError(f"{exc}; nothing ran") from None


def _which_unsandboxed(name: str, workspace: Workspace, own: bool) -> Path | None:
    """On the person's own ``PATH`` (absolute, existing folders only), the workspace's
    ``.venv`` first as the unsandboxed environment has it; ``own`` false: nothing of the
    workspace."""
    venv = viewing.workspace_venv(workspace.root)
    folders = [str(venv / "bin")] if venv is not None and own else []
    folders += os.environ.get("PATH", "").split(os.pathsep)
    for folder in folders:
        if not os.path.isabs(folder):
            continue
        if not own and workspace.root_of(Path(os.path.realpath(folder))) is not None:
            continue
        candidate = Path(folder, name)
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
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
            prlimit = limiting.prlimit()
            note = f"programs run in a bubblewrap sandbox ({origin})"
            if prlimit is None:
                note += f"; {NO_PRLIMIT}"
            layer = bubblewrap.layer_problem(path)
            if layer is not None:
                note += (
                    f"; read-only programs see the workspace plainly read-only, so a cache "
                    f"they write there fails ({layer})"
                )
            return Sandbox(bwrap=path, prlimit=prlimit, note=note, layer=layer is None)
        problems.append(problem)
    why = "; ".join(problems) or "bubblewrap is not installed"
    return Sandbox(bwrap=None, note=f"no sandbox ({why}): every program Foehn runs asks first")


def system_sandbox() -> Sandbox:
    """This machine's sandbox, detected once (per value of ``FOEHN_SANDBOX``)."""
    return _detect(os.environ.get(SETTING, "auto").strip().lower())
