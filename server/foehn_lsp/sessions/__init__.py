"""Sessions: one conversation in one workspace, a turn at a time, above ``agent/`` (one turn).

builder.py      the one assembly every front end goes through (``build_session``)
toolbox.py      what every call goes through, per workspace and per turn (the chain's parts)
session.py      ``Session``: turns, history, undo
recorder.py     what every kind of turn leaves behind (session file, audit log, front end)
history.py      which turns are in effect, and what undo and redo take next
store.py        saved sessions on disk and the blobs their checkpoints keep
checkpoints.py  what a turn changed, and putting it back
transcript.py   a session's records as JSONL, and reading them back for replay
audit.py        the per-workspace audit log of tool calls
commands.py     custom commands: ``/NAME`` files whose text becomes a turn's prompt
"""
