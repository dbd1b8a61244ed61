#!/usr/bin/env python3
"""A webhook receiver for the end-to-end tests: a real HTTP server on
127.0.0.1 whose answers are scripted, and which records every request.

    webhook_server.py --dir DIR [--secret KEY]

It listens on a free port (port 0), writes the port to DIR/port and prints
it. Each request takes the next entry of DIR/script.json, a JSON list of

    {"status": 200, "delay": 0, "retry_after": "1", "body": "text"}

(all optional; "{path}" in body becomes the request's path). The last entry
repeats once the list is used up; rewriting the file starts it over. No file
means 200. "delay" seconds pass before the answer: a large one is a receiver
that never answers.

Every request is appended to DIR/requests.jsonl as it arrives, before any
delay: {"n", "time", "method", "path", "headers" (names in lower case),
"body", "status" (the answer it will get), "signature_valid"}. With --secret
the X-Runner-Signature-256 header is checked like a real receiver would (HMAC-
SHA256 of the raw body, constant-time comparison); a request without a valid
signature is answered 401 whatever the script says.
"""
import argparse
import hashlib
import hmac
import json
import os
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Receiver(BaseHTTPRequestHandler):
    server_version = "webhook-test/1"

    def log_message(self, fmt, *args):  # quiet: the tests read requests.jsonl
        pass

    def next_behaviour(self):
        state = self.server.state
        path = os.path.join(state["dir"], "script.json")
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except FileNotFoundError:
            text = "[]"
        with state["lock"]:
            if text != state["script_text"]:
                state["script_text"] = text
                state["index"] = 0
            script = json.loads(text) or [{}]
            entry = script[min(state["index"], len(script) - 1)]
            state["index"] += 1
            state["count"] += 1
            return dict(entry), state["count"]

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        raw = self.rfile.read(length)
        behaviour, n = self.next_behaviour()
        status = int(behaviour.get("status", 200))
        record = {
            "n": n,
            "time": time.time(),
            "method": self.command,
            "path": self.path,
            "headers": {k.lower(): v for k, v in self.headers.items()},
            "body": raw.decode("utf-8", errors="replace"),
        }
        secret = self.server.state["secret"]
        if secret is not None:
            expected = "sha256=" + hmac.new(secret.encode(), raw, hashlib.sha256).hexdigest()
            given = self.headers.get("X-Runner-Signature-256", "")
            record["signature_valid"] = hmac.compare_digest(expected, given)
            if not record["signature_valid"]:
                status = 401
                behaviour = {"body": "bad signature"}
        record["status"] = status
        with self.server.state["lock"]:
            with open(os.path.join(self.server.state["dir"], "requests.jsonl"), "a",
                      encoding="utf-8") as log:
                log.write(json.dumps(record) + "\n")
        time.sleep(float(behaviour.get("delay", 0)))
        answer = str(behaviour.get("body", "ok")).replace("{path}", self.path).encode()
        try:
            self.send_response(status)
            if "retry_after" in behaviour:
                self.send_header("Retry-After", str(behaviour["retry_after"]))
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)
        except OSError:  # the client gave up waiting
            pass


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", required=True)
    parser.add_argument("--secret")
    args = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    server.daemon_threads = True
    server.state = {"dir": args.dir, "secret": args.secret, "lock": threading.Lock(),
                    "script_text": None, "index": 0, "count": 0}
    port = server.server_address[1]
    tmp = os.path.join(args.dir, "port.tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(f"{port}\n")
    os.rename(tmp, os.path.join(args.dir, "port"))
    print(port, flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
