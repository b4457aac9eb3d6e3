from foehn_lsp.cli.main import main

raise SystemExit(main())
