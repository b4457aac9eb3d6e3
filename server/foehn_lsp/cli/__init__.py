"""The ``foehn`` command.

main.py             the parser and one function per subcommand (the console script)
args.py             argparse helpers: one-line usage errors, flag checks, exit codes
chat.py             ``foehn chat``, ``foehn sessions`` and ``foehn undo``
terminal.py         ``foehn run``'s printers
approval_prompt.py  the terminal's approval question and the one parser of its answers
elicit_prompt.py    an MCP server's question in the terminal, field by field
mcp.py              ``foehn mcp list|login|logout`` and signing in from the terminal
replay.py           ``foehn replay``: a recorded transcript re-run offline
rules.py            ``foehn explain`` and ``foehn rules``
trust.py            ``foehn trust``: what of a trusted workspace waits for approval
sandbox.py          ``foehn sandbox``: what sandboxed programs see, write, and their limits
config_report.py    ``foehn config``: each effective setting and where it came from
event_schema.py     the JSON Schema of ``foehn run --json`` events
mentions.py         ``@path`` in what the person types in ``foehn chat``
stdin.py            what ``foehn run`` takes from a piped stdin
ignored.py          which changed files git ignores (left out of the summary)
output.py           stdout when its reader may go away (``| head``)
"""
