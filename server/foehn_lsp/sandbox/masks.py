"""What stays masked inside folders the view shows: the system's secrets in ``/etc`` and known
credential files inside the person's toolchains (and anything they list in ``[sandbox]
hidden``). A masked file cannot be opened; a masked folder is empty and read-only.

These are short lists on purpose: the view shows only granted folders, so a mask is needed
only where a granted folder holds a secret (a cargo home's registry token, a Node install's
``etc/npmrc``), never to hide the rest of the disk.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from foehn_lsp.sandbox.toolchains import within

ETC_DENIED = (
    "shadow",
    "shadow-",
    "gshadow",
    "gshadow-",
    "sudoers",
    "sudoers.d",
    "security/opasswd",
    "ssl/private",
    "krb5.keytab",
    "ipsec.secrets",
    "ppp/chap-secrets",
    "ppp/pap-secrets",
    "NetworkManager/system-connections",
    "wpa_supplicant",
    "openvpn",
    "ssh/ssh_host_*_key",
)
"""Below ``/etc``: password hashes, sudo rules, private TLS, Kerberos, VPN and Wi-Fi keys, and
the SSH host keys (globs allowed)."""

HOME_CREDENTIALS = (
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".config/gcloud",
    ".kube",
    ".docker/config.json",
    ".config/gh/hosts.yml",
    ".config/hub",
    ".netrc",
    ".git-credentials",
    ".config/git/credentials",
    ".npmrc",
    ".yarnrc",
    ".yarnrc.yml",
    ".pypirc",
    ".config/pip/pip.conf",
    ".pip/pip.conf",
    ".condarc",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".gem/credentials",
    ".m2/settings.xml",
    ".gradle/gradle.properties",
    ".terraform.d/credentials.tfrc.json",
    ".vault-token",
    ".local/share/keyrings",
    ".password-store",
    ".config/op",
)
"""Below the home folder: masked wherever a bound folder holds them."""

ROOT_CREDENTIALS = (
    "credentials",
    "credentials.toml",
    ".npmrc",
    "etc/npmrc",
    ".pypirc",
    "pip.conf",
    ".netrc",
    ".git-credentials",
    ".condarc",
)
"""Relative to each bound toolchain: a cargo home's token, a Node install's global npmrc, a
conda or pip configuration that may carry an index password."""


def etc_masks(etc: Path = Path("/etc")) -> list[Path]:
    return _existing(etc.glob(name) for name in ETC_DENIED)


def credential_masks(
    roots: Sequence[Path], home: Path | None, hidden: Sequence[Path]
) -> list[Path]:
    """Credential files and ``hidden`` paths that ``roots`` would show."""
    candidates = [[root / name for name in ROOT_CREDENTIALS] for root in roots]
    if home is not None:
        candidates.append([home / name for name in HOME_CREDENTIALS])
    candidates.append(list(hidden))
    found = _existing(candidates)
    return [path for path in found if any(within(path, root) for root in roots)]


def is_credential(path: Path, home: Path | None, hidden: Sequence[Path]) -> bool:
    """Whether ``path`` (a real path) is, or is inside, a credential file or folder that a mask
    would cover: one of the home's, one of a toolchain's by its name, or ``hidden``."""
    covering = [*hidden]
    if home is not None:
        covering += [Path(os.path.realpath(home / name)) for name in HOME_CREDENTIALS]
    if path.name in {Path(name).name for name in ROOT_CREDENTIALS}:
        return True
    return any(within(path, mask) for mask in covering)


def _existing(groups: Iterable[Iterable[Path]]) -> list[Path]:
    """The real paths of those that exist (a link's target: a mount covers what it names)."""
    found: list[Path] = []
    for group in groups:
        for path in group:
            if not os.path.lexists(path):
                continue
            real = Path(os.path.realpath(path))
            if real.exists() and real not in found:
                found.append(real)
    return sorted(found)
