from foehn_lsp.cli.main import run

raise SystemExit(run())
