"""The plugin author's API is exactly what ``foehn_lsp`` exports; this pins it."""

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
