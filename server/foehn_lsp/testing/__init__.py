"""Test support that plugin authors can use too: a real HTTP model server, scripted per test
(``model_server.py``).
"""

from foehn_lsp.testing.model_server import Fault, ModelServer, RecordedRequest, Turn

__all__ = ["Fault", "ModelServer", "RecordedRequest", "Turn"]
