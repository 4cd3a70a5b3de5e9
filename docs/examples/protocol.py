#!/usr/bin/env python3
"""A host app's first exchange with the logwatch daemon (docs/protocol.md).

Usage: python3 protocol.py [SOCKET]   (default $LOGWATCH_SOCKET, then
$XDG_RUNTIME_DIR/logwatch/logwatch.sock). Python 3 standard library only.

It reads the status, subscribes, reports a turn through hooks on a second
connection, acknowledges it, closes its tab, and prints each change the
subscription streams. It changes the state of a session named example-1 and a
tab named example-tab, nothing else.
"""
import json
import os
import socket
import sys


def default_socket():
    if os.environ.get("LOGWATCH_SOCKET"):
        return os.environ["LOGWATCH_SOCKET"]
    run = os.environ.get("XDG_RUNTIME_DIR")
    if run:
        return os.path.join(run, "logwatch", "logwatch.sock")
    return os.path.join(os.environ.get("TMPDIR", "/tmp"), "logwatch-%d" % os.getuid(), "logwatch.sock")


class Conn:
    """One connection: one JSON object per line each way."""

    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(10)
        self.sock.connect(path)
        self.rd = self.sock.makefile("rb")

    def send(self, req):
        self.sock.sendall(json.dumps(req).encode() + b"\n")

    def read(self):
        line = self.rd.readline()
        if not line:
            raise EOFError("the daemon closed the connection")
        return json.loads(line)

    def call(self, req):
        """A request and its answer; {"ok": false} raises."""
        self.send(req)
        resp = self.read()
        if not resp["ok"]:
            raise RuntimeError(resp["error"])
        return resp


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else default_socket()
    api = Conn(path)
    st = api.call({"op": "status"})
    if st.get("protocol") != 1:
        sys.exit("unknown protocol version %r" % st.get("protocol"))
    print("protocol %d, %d sessions" % (st["protocol"], len(st["status"]["sessions"])))

    stream = Conn(path)
    first = stream.call({"op": "subscribe"})
    print("subscribed, %d snapshot lines" % first["snapshot"])
    for _ in range(first["snapshot"]):
        stream.read()  # one line per known session, "snapshot": true

    def hook(event):
        payload = {"hook_event_name": event, "session_id": "example-1", "cwd": "/tmp/example"}
        api.call({"op": "hook", "agent": "claude", "tab": "example-tab", "payload": payload})

    def change():
        while True:
            ev = stream.read()
            if "ok" in ev:  # an error line ends the stream: resubscribe
                raise RuntimeError(ev["error"])
            if ev["session"] == "example-1":
                print("%s %s %s (%s, rule %s)" % (ev["session"], ev["state"], ev["reason"], ev["source"], ev["rule"]))
                return ev

    hook("UserPromptSubmit")
    change()
    hook("Stop")
    change()
    api.call({"op": "ack", "session": "example-1"})
    change()
    ended = api.call({"op": "tab_closed", "tab": "example-tab"})["ended"]
    change()
    print("tab closed, %d session ended" % ended)
    try:
        api.call({"op": "nope"})
    except RuntimeError as e:
        print("refused: %s" % e)


if __name__ == "__main__":
    main()
