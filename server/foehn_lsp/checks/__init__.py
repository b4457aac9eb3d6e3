"""What an answer and an edit are held against: the claims an answer makes (``claims``), checked
against the turn (``honesty``; ``comments`` tells a change of comments from one of code); the
problems a turn's edits add to the files they change (``checking``), found by the workspace's
own checkers in the sandbox (``checkers``) or by the editor's language servers."""
