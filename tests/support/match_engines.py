"""Engines for the referee tests: qttt-engine/1 programs that misbehave on `go` in one way each.

Run as `python tests/support/match_engines.py MODE`: hello, new and apply are answered as the protocol
says (by this package's engine); `go` is answered by a random legal action, except that
  illegal   answers a placement in one cell on the first move (rule place-distinct);
  sleep     sleeps 3 s before answering;
  exit      exits with status 7 instead of answering;
  garbage   writes a line that is not JSON;
  silent    never answers go;
  mute      never answers anything, not even hello;
  refuse    refuses every apply after the first;
  nogo      lists only perft among its commands in hello;
  fine      plays by the rules.
"""

from __future__ import annotations

import json
import sys
import time

from qttt.conformance.protocol import QtttEngine


def main(mode: str) -> int:
    engine = QtttEngine()
    applied = 0
    for line in sys.stdin:
        request = json.loads(line)
        cmd = request.get("cmd")
        if mode == "mute" or (mode == "silent" and cmd == "go"):
            continue
        if cmd == "go":
            if mode == "exit":
                return 7
            if mode == "garbage":
                print("e2e4 please", flush=True)
                continue
            if mode == "sleep":
                time.sleep(3)
            if mode == "illegal":
                print(json.dumps({"id": request["id"], "ok": True, "action": {"place": [0, 0]}}), flush=True)
                continue
        if cmd == "apply":
            applied += 1
            if mode == "refuse" and applied > 1:
                print(json.dumps({"id": request["id"], "ok": False, "error": {
                    "kind": "illegal", "rule": None, "message": "no"}}), flush=True)
                continue
        response = engine.handle(request)
        if mode == "nogo" and cmd == "hello":
            response["commands"] = ["perft"]
        print(json.dumps({"id": request["id"], **response}), flush=True)
        if cmd == "quit":
            break
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
