from foehn_lsp.cli import main

raise SystemExit(main())
