"""The person's toolchains, found from their ``PATH``: every folder on it outside the system
folders, resolved to the installation it belongs to (a virtual environment, pyenv, a version
manager's Node, a cargo home and its rustup, a conda environment, Homebrew, SDKMAN…), so that a
sandboxed program finds the same programs as the person's shell and sees nothing else of the
home folder.

The rules, per ``PATH`` entry (after following symbolic links):
- in a system folder (``/usr``, ``/bin``…): nothing to add;
- empty, relative, missing or a symbolic link loop: left out, with a line saying why;
- ``…/bin`` of a virtual environment: the environment, and the Python it was made from;
- inside a pyenv, volta or conda installation (found by its own files): that installation;
- ``…/bin`` of a cargo home: the cargo home, and the rustup home its programs need;
- any other ``…/bin``: its parent, unless that parent is the home folder or ``~/.local``
  (which hold far more than programs), then the folder alone (with ``~/.local/lib/python*``
  for ``pip install --user`` packages);
- anything else: the folder alone.
An activated environment (``VIRTUAL_ENV``, ``CONDA_PREFIX``) is bound as its ``bin`` on
``PATH`` would be, even when it is not on ``PATH``: the person's own toolchain.
Programs in such a folder that are symbolic links to another installation (``uv tool``,
``pipx``) or scripts whose ``#!`` names an interpreter elsewhere bring that installation too.
A root that is ``/``, the home folder or a folder holding it is refused with one line: binding
it would show everything.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

SYSTEM_FOLDERS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
"""Where the system's programs live; bound read-only as the system has them."""
ACTIVATED = ("VIRTUAL_ENV", "CONDA_PREFIX")
"""An activated Python environment: bound as its ``bin`` folder on ``PATH`` would be (with the
Python a virtual environment was made from), whether or not that folder is on ``PATH``."""
TOOLCHAIN_VARIABLES = (
    *ACTIVATED,
    "PYENV_ROOT",
    "RUSTUP_HOME",
    "CARGO_HOME",
    "VOLTA_HOME",
    "NVM_DIR",
    "FNM_DIR",
    "GOROOT",
    "GOPATH",
    "JAVA_HOME",
    "SDKMAN_DIR",
    "PNPM_HOME",
    "BUN_INSTALL",
    "DENO_INSTALL",
)
"""Variables naming a toolchain's folder: the folder is bound and the variable passed on."""
SCRIPT_HEAD = 256


@dataclass(frozen=True, kw_only=True)
class Root:
    """One folder bound read-only, with why."""

    path: Path
    """A real path."""
    why: str


@dataclass(frozen=True, kw_only=True)
class Toolchains:
    roots: tuple[Root, ...]
    path: tuple[Path, ...]
    """The ``PATH`` entries that stay, in the person's order, as real paths."""
    dropped: tuple[tuple[str, str], ...]
    """``PATH`` entries left out: (the entry as written, why)."""
    refused: tuple[str, ...]
    """One line per root that was not bound."""
    variables: tuple[str, ...]
    """Toolchain variables whose folder is bound (passed on to programs)."""


def is_system(path: Path) -> bool:
    return any(within(path, Path(folder)) for folder in SYSTEM_FOLDERS)


def within(path: Path, folder: Path) -> bool:
    """Whether ``path`` is ``folder`` or below it (both real paths)."""
    return path == folder or folder in path.parents


def too_wide(path: Path, home: Path | None) -> str | None:
    """Why binding ``path`` would show too much, or ``None``."""
    if path == Path("/"):
        return "is the whole file system"
    if home is not None and path == home:
        return "is the whole home folder"
    if home is not None and path in home.parents:
        return "holds the home folder"
    return None


def find(path_variable: str, home: Path | None, environment: Mapping[str, str]) -> Toolchains:
    """The toolchains of ``path_variable`` (a ``PATH`` value) and of the toolchain variables in
    ``environment``."""
    found = _Finder(home)
    kept: list[Path] = []
    dropped: list[tuple[str, str]] = []
    for written in path_variable.split(os.pathsep):
        entry, problem = _real_folder(written)
        if entry is None:
            dropped.append((written, problem))
            continue
        if not is_system(entry):
            problem = found.entry(entry, f"PATH entry {written}")
            if problem:
                dropped.append((written, problem))
                continue
        if entry not in kept:
            kept.append(entry)
    for name in ACTIVATED:
        folder, _ = _real_folder(environment.get(name, ""))
        if folder is not None and (folder / "bin").is_dir():
            found.entry(folder / "bin", f"the activated environment {name}")
    variables = []
    for name in TOOLCHAIN_VARIABLES:
        if value := environment.get(name):
            folders = [_real_folder(part)[0] for part in value.split(os.pathsep)]
            bound = [f is not None and found.add(f, f"toolchain variable {name}") for f in folders]
            if all(bound):
                variables.append(name)
    found.companions(environment)
    return Toolchains(
        roots=tuple(found.roots.values()),
        path=tuple(kept),
        dropped=tuple(dropped),
        refused=tuple(found.refused),
        variables=tuple(variables),
    )


def python_installation(prefix: Path) -> bool:
    """Whether ``prefix`` holds a Python installation (its standard library)."""
    lib = prefix / "lib"
    return any(lib.glob("python3*/os.py")) or any(lib.glob("pypy3*/os.py"))


def venv_base(venv: Path) -> Path | None:
    """The Python installation the virtual environment ``venv`` was made from (its
    ``pyvenv.cfg`` ``home``), if that is one."""
    try:
        lines = (venv / "pyvenv.cfg").read_text("utf-8", "replace").splitlines()
    except OSError:
        return None
    for line in lines:
        key, _, value = line.partition("=")
        if key.strip() == "home" and value.strip():
            folder, _ = _real_folder(value.strip())
            if folder is None:
                return None
            prefix = folder.parent if folder.name == "bin" else folder
            return prefix if python_installation(prefix) else None
    return None


def _real_folder(written: str) -> tuple[Path | None, str]:
    """``written`` as a real folder, or why it cannot be one."""
    if not written:
        return None, "an empty entry means the current folder, which may be the workspace"
    if not os.path.isabs(written):
        return None, "a relative entry depends on the current folder, which may be the workspace"
    try:
        real = Path(written).resolve(strict=True)
    except RuntimeError:
        return None, "it is a symbolic link loop"
    except FileNotFoundError:
        return None, "it does not exist"
    except OSError as exc:
        if exc.errno == 40:  # ELOOP
            return None, "it is a symbolic link loop"
        return None, f"it cannot be read ({exc.strerror})"
    if not real.is_dir():
        return None, "it is not a folder"
    return real, ""


class _Finder:
    """Collects roots (outermost wins) and refusals while the entries are read."""

    def __init__(self, home: Path | None) -> None:
        self.home = home
        self.roots: dict[Path, Root] = {}
        self.refused: list[str] = []
        self.cargo_homes: list[Path] = []

    def add(self, path: Path, why: str) -> bool:
        """Bind ``path`` (unless it is too wide, or inside a root already bound)."""
        if is_system(path):
            return True
        if problem := too_wide(path, self.home):
            self.refused.append(f"{path} ({why}) {problem}: not bound")
            return False
        if any(within(path, root) for root in self.roots):
            return True
        for inner in [r for r in self.roots if within(r, path)]:
            del self.roots[inner]
        self.roots[path] = Root(path=path, why=why)
        return True

    def entry(self, entry: Path, why: str) -> str:
        """Bind what the ``PATH`` entry ``entry`` needs; why it is left out, or ``""``."""
        root, kind = self._installation(entry)
        if not self.add(root, f"{why}: {kind}" if kind else why):
            return f"its installation {root} {too_wide(root, self.home)}"
        if kind == "folder on PATH" and self.home and entry.parent == self.home / ".local":
            for site in sorted((self.home / ".local" / "lib").glob("python*")):
                self.add(site, f"{why}: pip install --user packages")
        self._elsewhere(entry, root, why)
        return ""

    def companions(self, environment: Mapping[str, str]) -> None:
        """What a found toolchain needs besides itself: a cargo home's rustup home."""
        if self.cargo_homes and not environment.get("RUSTUP_HOME") and self.home:
            rustup = self.home / ".rustup"
            if rustup.is_dir():
                self.add(rustup, f"rustup home (for {self.cargo_homes[0]})")

    def _installation(self, entry: Path) -> tuple[Path, str]:
        if entry.name == "bin" and (entry.parent / "pyvenv.cfg").is_file():
            base = venv_base(entry.parent)
            if base is not None:
                self.add(base, f"the Python {entry.parent} was made from")
            return entry.parent, "virtual environment"
        for folder in (entry, *entry.parents):
            if self.home is not None and folder in (self.home, *self.home.parents):
                break
            if (folder / "versions").is_dir() and (
                (folder / "shims").is_dir() or (folder / "libexec" / "pyenv").exists()
            ):
                return folder, "pyenv"
            if (folder / "bin" / "volta-shim").exists():
                return folder, "volta"
            if (folder / "conda-meta").is_dir():
                return folder, "conda environment"
        if entry.name == "bin" and (entry / "rustup").exists():
            self.cargo_homes.append(entry.parent)
            return entry.parent, "cargo home"
        parent = entry.parent
        wide = too_wide(parent, self.home) or (self.home and parent == self.home / ".local")
        if entry.name == "bin" and not wide and parent != Path("/"):
            return parent, "installation"
        return entry, "folder on PATH"

    def _elsewhere(self, entry: Path, root: Path, why: str) -> None:
        """Installations that programs in ``entry`` lead to: symbolic links out of ``root``
        and scripts whose interpreter lives elsewhere."""
        for program in _programs(entry):
            if program.is_symlink():
                target = Path(os.path.realpath(program))
                if not within(target, root) and target.is_file():
                    self._follow(target.parent, f"{why}: {program.name} is installed there")
            elif (
                (interpreter := _interpreter(program)) is not None
                and not within(interpreter, root)
                and interpreter.parent.is_dir()
            ):
                self._follow(interpreter.parent, f"{why}: the interpreter of {program.name}")

    def _follow(self, folder: Path, why: str) -> None:
        if is_system(folder) or any(within(folder, r) for r in self.roots):
            return
        root, kind = self._installation(folder)
        self.add(root, f"{why} ({kind})")


def _programs(folder: Path) -> Iterable[Path]:
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return []
    return [Path(e.path) for e in entries if not e.is_dir()]


def _interpreter(program: Path) -> Path | None:
    """The absolute interpreter a script's ``#!`` line names (``/usr/bin/env X`` names none)."""
    try:
        with open(program, "rb") as file:
            head = file.read(SCRIPT_HEAD)
    except OSError:
        return None
    if not head.startswith(b"#!"):
        return None
    words = head[2:].split(b"\n", 1)[0].split()
    if not words or not words[0].startswith(b"/"):
        return None
    path = Path(os.fsdecode(words[0]))
    if path.name == "env":
        return None
    return Path(os.path.realpath(path))
