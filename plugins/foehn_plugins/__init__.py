"""Foehn's first-party tools. They load through the ``foehn_lsp.plugins`` entry points, the same
front door as anyone's plugins."""
