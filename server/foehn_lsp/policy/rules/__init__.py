"""The person's rules, and the one decision every call goes through (``decision.decide``).

ruleset.py   ``[[rules]]`` read and checked: ``Rule``, ``RuleSet``, where each came from
match.py     whether a rule covers a call: on the argv and the paths, never on shell text
argv.py      what an argument list runs, as the programs read it (the view rules match on)
decision.py  rules, hooks' answers, what was remembered and the policy, weighed in one place
proposal.py  "always": the narrowest rule that covers one call
explain.py   why a call is allowed, asked about or denied (``foehn explain``)
store.py     adding and removing rules in the user's ``config.toml``
tables.py    where each ``[[table]]`` and key of a TOML text is, for ``FILE:LINE`` reports

Hooks are ``policy.hooks``; the rules and hooks in force for a session, ``policy.guards``.
"""
