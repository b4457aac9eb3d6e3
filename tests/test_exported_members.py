"""The plugin author's API is exactly what ``foehn_lsp`` exports; this pins it. And each
package's map (its ``__init__`` docstring) names every module the package holds."""

import ast
import re
from pathlib import Path

import pytest

import foehn_lsp


def test_public_api_is_pinned() -> None:
    assert sorted(foehn_lsp.__all__) == [
        "RiskLevel",
        "Tool",
        "ToolContext",
        "ToolResult",
        "__version__",
        "tool",
    ]


def test_every_exported_name_exists() -> None:
    for name in foehn_lsp.__all__:
        assert hasattr(foehn_lsp, name), name


def test_nothing_public_is_left_unexported() -> None:
    public = {
        name
        for name, value in vars(foehn_lsp).items()
        if not name.startswith("_") and not getattr(value, "__file__", None)
    }
    assert public <= set(foehn_lsp.__all__)


PACKAGE = Path(__file__).parents[1] / "server" / "foehn_lsp"


def _named(docstring: str, module: str) -> bool:
    return re.search(rf"(?<![\w.]){re.escape(module)}(\.py|/|\b)", docstring) is not None


@pytest.mark.parametrize(
    "package",
    sorted(p.parent for p in PACKAGE.rglob("__init__.py") if p.parent != PACKAGE),
    ids=lambda p: p.relative_to(PACKAGE).as_posix(),
)
def test_each_package_map_names_every_module_it_holds(package: Path) -> None:
    docstring = ast.get_docstring(ast.parse((package / "__init__.py").read_text())) or ""
    modules = [p.stem for p in package.glob("*.py") if p.stem != "__init__"]
    modules += [p.name for p in package.iterdir() if (p / "__init__.py").is_file()]
    missing = [m for m in sorted(modules) if not _named(docstring, m)]
    assert not missing, f"{package.name}/__init__.py does not name {missing}"
