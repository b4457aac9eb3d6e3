"""The ``foehn`` command.

main.py           the parser and one function per subcommand (the console script)
args.py           argparse helpers: one-line usage errors, flag checks, exit codes
chat.py           ``foehn chat``, ``foehn sessions`` and ``foehn undo``
terminal.py       ``foehn run``'s printers and the terminal's approval prompt
replay.py         ``foehn replay``: a recorded transcript re-run offline
config_report.py  ``foehn config``: each effective setting and where it came from
event_schema.py   the JSON Schema of ``foehn run --json`` events
"""
