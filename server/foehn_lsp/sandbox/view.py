"""What a sandboxed program sees of the file system: granted, never hidden.

The view starts from an empty root and binds, read-only unless said otherwise:
- the system: ``/usr``, ``/bin`` ``/sbin`` ``/lib*`` as the system has them (links or folders),
  ``/etc`` less its secrets (``masks.ETC_DENIED``); a fresh ``/dev`` and ``/proc``; private,
  size-limited scratch folders for ``/tmp``, ``/dev/shm`` and the home folder;
- the person's toolchains, found from their ``PATH`` (``toolchains``), and the toolchain
  variables' folders;
- Foehn's own Python (``sys.prefix`` and ``sys.base_prefix``);
- the folders the person added (``[sandbox] readable``);
- the workspace roots (writable under ``workspace-write``), and the Python the workspace's
  ``.venv`` was made from;
- then, over all of that: the protected names of each root (``.git``, ``.foehn``, ``.vscode``,
  ``.envrc``) read-only, and the masks (credential files in bound folders, ``[sandbox]
  hidden``).
Nothing else: not the rest of the home, not sibling folders, ``/srv``, ``/opt``, ``/var``,
``/mnt``, ``/media``; a symbolic link that points anywhere else leads nowhere.

``Machine`` is what every call sees besides the workspace; it is built once per ``PATH``,
home, settings and state of the ``PATH`` folders. ``View`` is one call's.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Literal

from foehn_lsp.config.sandbox import SandboxSettings
from foehn_lsp.sandbox import masks, toolchains
from foehn_lsp.sandbox.limits import Limits
from foehn_lsp.sandbox.toolchains import SYSTEM_FOLDERS, TOOLCHAIN_VARIABLES, within

Kind = Literal["system", "toolchain", "foehn", "readable", "workspace", "workspace venv"]
PROTECTED_NAMES = (".git", ".foehn", ".vscode", ".envrc")
"""Names in a workspace root that make code run later (git's hooks and config, Foehn's
plugins, the editor's tasks and settings, direnv): no sandboxed program may create or change
them."""
PROTECTED_FILES = frozenset({".envrc"})
"""Protected names that are files (the others are folders)."""
SCRATCH = ("/tmp", "/dev/shm")


@dataclass(frozen=True, kw_only=True)
class Entry:
    """One folder of the view, with why it is there."""

    path: Path
    """A real path, bound at the same place."""
    kind: Kind
    why: str


@dataclass(frozen=True, kw_only=True)
class Machine:
    """What every sandboxed call sees besides the workspace."""

    home: Path | None
    """The person's home folder (a private, empty scratch folder inside)."""
    system: tuple[Entry, ...]
    links: tuple[tuple[Path, str], ...]
    """System folders that are symbolic links (``/bin`` -> ``usr/bin``), made again inside."""
    granted: tuple[Entry, ...]
    """Toolchains, Foehn's own Python and ``readable``, outermost first."""
    masked: tuple[Path, ...]
    hidden: tuple[Path, ...]
    """``[sandbox] hidden``, as real paths (masked wherever the view shows them)."""
    path: tuple[Path, ...]
    """``PATH`` inside: the person's, in order, as real folders, less what is left out."""
    dropped: tuple[tuple[str, str], ...]
    """``PATH`` entries left out: (the entry, why)."""
    refused: tuple[str, ...]
    """One line per folder that was not bound (too wide, missing)."""
    variables: tuple[str, ...]
    """Toolchain variables passed on to programs (their folders are bound)."""
    limits: Limits

    def folders(self) -> tuple[Path, ...]:
        return tuple(e.path for e in (*self.system, *self.granted))


@dataclass(frozen=True, kw_only=True)
class View:
    """What one call sees."""

    machine: Machine
    roots: tuple[Path, ...]
    """The workspace roots (real paths)."""
    writable: bool
    """Whether the roots are writable (``workspace-write``)."""
    layer: bool = False
    """For a view that is not writable: the roots are seen through a throwaway writable layer
    (an overlay on a private tmpfs), so what a program writes there (caches, build folders)
    works and vanishes with the call; else they are plainly read-only."""
    readable: tuple[Path, ...] = ()
    """Files bound read-only for this call alone (a hook's own script)."""
    venv: Path | None
    """The workspace's virtual environment, if it has one."""
    extra: tuple[Entry, ...]
    """Bound for this workspace: the Python its ``.venv`` was made from."""
    protected: tuple[Path, ...]
    """Protected names that exist (and what a ``.git`` file points to): re-bound read-only."""
    missing: tuple[Path, ...] = ()
    """Protected names that do not exist, in a writable view: the runner makes an empty
    placeholder for each, bound read-only, for as long as the call runs."""
    masked: tuple[Path, ...]
    cwd: Path
    problems: tuple[str, ...] = field(default=())
    """Why this view must not be built (a protected name that is a symbolic link in a writable
    view): the call fails with these lines."""

    def visible(self, path: Path) -> bool:
        """Whether ``path`` (a real path) can be seen from inside."""
        shown = (
            *self.machine.folders(),
            *(e.path for e in self.extra),
            *self.readable,
            *self.roots,
        )
        if not any(within(path, folder) for folder in shown):
            return False
        return not any(within(path, mask) for mask in self.masked)

    def search_path(self, *, workspace: bool) -> list[Path]:
        """``PATH`` inside. ``workspace``: the workspace's own programs too (its ``.venv``
        first), for calls the person approved; else only the system's and the toolchains',
        so that no program of the repository's can pose as a system one."""
        if not workspace:
            return [p for p in self.machine.path if not any(within(p, r) for r in self.roots)]
        first = [self.venv / "bin"] if self.venv is not None else []
        return [*first, *(p for p in self.machine.path if p not in first)]

    def which(self, name: str, *, workspace: bool) -> Path | None:
        """The program ``name`` on ``search_path``: the folder's real path and the name (a
        virtual environment's ``bin/python`` stays the environment's)."""
        for folder in self.search_path(workspace=workspace):
            candidate = folder / name
            real = Path(os.path.realpath(candidate))
            if real.is_file() and os.access(real, os.X_OK) and self.visible(real):
                return candidate
        return None

    def scratch(self) -> list[Path]:
        """The private, empty, size-limited folders: ``/tmp``, ``/dev/shm`` and the home
        folder (unless a workspace root holds it: then the workspace is what is seen there)."""
        home = self.machine.home
        folders = [Path(folder) for folder in SCRATCH]
        if home is None or any(home == r or r in home.parents for r in self.roots):
            return folders
        return [*folders, home]

    def entries(self) -> list[Entry]:
        """Every visible folder with why, in the order bound."""
        if self.writable:
            how = "writable"
        elif self.layer:
            how = "read-only (writes land in a throwaway layer and vanish with the call)"
        else:
            how = "read-only"
        roots = [
            Entry(path=root, kind="workspace", why=f"workspace root, {how}") for root in self.roots
        ]
        return [*self.machine.system, *self.machine.granted, *self.extra, *roots]


def machine(settings: SandboxSettings, environ: Mapping[str, str] | None = None) -> Machine:
    """The machine's part of every view, for ``settings`` and the environment."""
    environ = os.environ if environ is None else environ
    home = home_folder(environ)
    path = environ.get("PATH", "")
    variables = tuple((name, environ.get(name, "")) for name in TOOLCHAIN_VARIABLES)
    return _machine(settings, home, path, variables, _stamps(path), sys.prefix, sys.base_prefix)


@lru_cache(maxsize=16)
def _machine(
    settings: SandboxSettings,
    home: Path | None,
    path: str,
    variables: tuple[tuple[str, str], ...],
    stamps: tuple[int | None, ...],
    prefix: str,
    base_prefix: str,
) -> Machine:
    """Built once per inputs; ``stamps`` (the ``PATH`` folders' modification times) make a
    newly installed tool count."""
    found = toolchains.find(path, home, dict(variables))
    granted = [Entry(path=r.path, kind="toolchain", why=r.why) for r in found.roots]
    refused = list(found.refused)
    for own, why in ((prefix, "sys.prefix"), (base_prefix, "sys.base_prefix")):
        real = Path(os.path.realpath(own))
        if toolchains.is_system(real) or any(within(real, e.path) for e in granted):
            continue
        if problem := toolchains.too_wide(real, home):
            refused.append(f"{real} (Foehn's own Python, {why}) {problem}: not bound")
            continue
        granted.append(Entry(path=real, kind="foehn", why=f"Foehn's own Python ({why})"))
    for written in settings.readable:
        real = _expanded(written, home)
        if not real.is_dir():
            refused.append(f"readable {written!r} is not a folder here: not bound")
        elif problem := toolchains.too_wide(real, home):
            refused.append(f"readable {written!r} {problem}: not bound")
        elif not any(within(real, e.path) for e in granted):
            granted.append(Entry(path=real, kind="readable", why=f"[sandbox] readable {written}"))
    granted = _outermost(granted)
    hidden = tuple(_expanded(h, home) for h in settings.hidden)
    bound = [e.path for e in granted]
    return Machine(
        home=home,
        system=tuple(_system()),
        links=tuple(_links()),
        granted=tuple(granted),
        masked=tuple(masks.etc_masks() + masks.credential_masks(bound, home, hidden)),
        hidden=hidden,
        path=found.path,
        dropped=found.dropped,
        refused=tuple(refused),
        variables=found.variables,
        limits=Limits.of(settings),
    )


def view(
    machine: Machine,
    roots: Sequence[Path],
    cwd: Path,
    *,
    writable: bool,
    unprotected: Sequence[str] = (),
    layer: bool = False,
    readable: Sequence[Path] = (),
) -> View:
    """One call's view of ``roots``; ``unprotected``: protected names this call may create
    (a repository, by the step that makes one); ``layer``: a view that is not writable shows
    the roots through a throwaway writable layer; ``readable``: files (real paths) and folders
    bound read-only for this call alone, their credential files masked."""
    roots = tuple(roots)
    venv = workspace_venv(roots[0]) if roots else None
    extra = []
    if venv is not None and (base := toolchains.venv_base(venv)) is not None:
        shown = (*machine.folders(), *roots)
        if not any(within(base, f) for f in shown) and not toolchains.too_wide(base, machine.home):
            why = f"the Python the workspace's {venv.name} was made from"
            extra.append(Entry(path=base, kind="workspace venv", why=why))
    protected, missing, problems = _protected(roots, writable, unprotected)
    hidden = [h for h in machine.hidden if any(within(h, r) for r in roots) and h.exists()]
    extra_masks = masks.credential_masks([e.path for e in extra], None, ())
    readable = [
        path for path in readable if not masks.is_credential(path, machine.home, machine.hidden)
    ]
    folders = [path for path in readable if path.is_dir()]
    extra_masks += masks.credential_masks(folders, machine.home, machine.hidden)
    return View(
        machine=machine,
        roots=roots,
        writable=writable,
        layer=layer and not writable,
        readable=tuple(readable),
        venv=venv,
        extra=tuple(extra),
        protected=tuple(protected),
        missing=tuple(missing),
        masked=(*machine.masked, *hidden, *extra_masks),
        cwd=cwd,
        problems=tuple(problems),
    )


def _protected(
    roots: Sequence[Path], writable: bool, unprotected: Sequence[str]
) -> tuple[list[Path], list[Path], list[str]]:
    found: list[Path] = []
    missing: list[Path] = []
    problems: list[str] = []
    for root in roots:
        for name in PROTECTED_NAMES:
            path = root / name
            if path.is_symlink():
                if writable:
                    problems.append(
                        f"the workspace's {name} is a symbolic link, which a program could "
                        "replace: nothing that may write in the workspace runs here"
                    )
                target = Path(os.path.realpath(path))
                if target.exists() and any(within(target, r) for r in roots):
                    found.append(target)
                continue
            if not path.exists():
                if writable and name not in unprotected:
                    missing.append(path)
                continue
            if name in unprotected:
                continue
            found.append(path)
            if name == ".git" and path.is_file():
                gitdir = _gitdir(path)
                if gitdir is not None and any(within(gitdir, r) for r in roots):
                    found.append(gitdir)
    return found, missing, problems


def _gitdir(gitfile: Path) -> Path | None:
    try:
        first = gitfile.read_text("utf-8", "replace").splitlines()[:1]
    except OSError:
        return None
    if not first or not first[0].startswith("gitdir:"):
        return None
    target = Path(os.path.realpath(gitfile.parent / first[0].removeprefix("gitdir:").strip()))
    return target if target.exists() else None


def _system() -> list[Entry]:
    entries = []
    for folder in ("/usr", *SYSTEM_FOLDERS[1:]):
        path = Path(folder)
        if path.is_dir() and not path.is_symlink():
            entries.append(Entry(path=path, kind="system", why="the system's programs"))
    if Path("/etc").is_dir():
        why = f"the system's configuration, less {len(masks.ETC_DENIED)} kinds of secret"
        entries.append(Entry(path=Path("/etc"), kind="system", why=why))
    return entries


def _links() -> list[tuple[Path, str]]:
    return [
        (Path(folder), os.readlink(folder))
        for folder in SYSTEM_FOLDERS[1:]
        if os.path.islink(folder) and Path(folder).is_dir()
    ]


def _outermost(entries: list[Entry]) -> list[Entry]:
    """Entries inside another one dropped (it shows them already), parents first."""
    kept = [e for e in entries if not any(o is not e and within(e.path, o.path) for o in entries)]
    return sorted(kept, key=lambda e: e.path.parts)


def home_folder(environ: Mapping[str, str]) -> Path | None:
    home = environ.get("HOME") or os.path.expanduser("~")
    if not home or home == "~":
        return None
    real = Path(os.path.realpath(home))
    return None if real == Path("/") else real


def _expanded(written: str, home: Path | None) -> Path:
    if written.startswith("~") and home is not None:
        written = str(home) + written[1:]
    return Path(os.path.realpath(written))


def workspace_venv(root: Path) -> Path | None:
    for name in (".venv", "venv"):
        folder = root / name
        if (folder / "pyvenv.cfg").is_file() and not folder.is_symlink():
            return folder
    return None


def _stamps(path: str) -> tuple[int | None, ...]:
    stamps: list[int | None] = []
    for entry in path.split(os.pathsep):
        try:
            stamps.append(os.stat(entry).st_mtime_ns if os.path.isabs(entry) else None)
        except OSError:
            stamps.append(None)
    return tuple(stamps)
