"""The language server's wire, kept apart from the handlers: a handler never sees a frame.

framing.py    the byte stream split into frames, resynchronised after a bad one
transport.py  stdio and TCP: frames in, JSON decoded, messages to the protocol
protocol.py   pygls's protocol held to the LSP lifecycle and one answer per request
writer.py     writing to the client on a thread of its own
client.py     asking the client, every wait bounded
answers.py    the client's answers, checked against their exact shape
"""
