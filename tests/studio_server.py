#!/usr/bin/env python3
"""A Performance Studio stand-in for tests (python3 stdlib only, loopback only).

Implements the routes of docs/spec/STUDIO.md the way the real server behaves:

  POST /api/v2/profiles (and /api/v1/profiles)
      411 without Content-Length; 413 when Content-Length (the compressed body) exceeds --max-len
      (default 4 MiB); 400 when GPROFILER-API-KEY / GPROFILER-SERVICE-NAME are missing or do not
      match; gunzips (Content-Encoding: gzip); 400 when the body is not JSON, has no gpid, or the
      profile's first line is not "# {json}"; else {"message": "ok", "gpid": N}.
  GET  /api/v1/health_check, /api/v2/health_check -> {"message": "ok"} (headers checked like uploads)
  POST /api/metrics/heartbeat   (Authorization: Bearer <token> checked) -> a queued command once, or
                                 {"success": true, "message": "Heartbeat received. No new commands."}
  POST /api/metrics/command_completion -> recorded; {"success": true}

Test control (also loopback):
  POST /_control/command  {"command_id": ..., "profiling_command": {...}, "hostname": optional, "repeat": N}
  POST /_control/fail     {"mode": "500"|"reset"|"slow"|"close"|"badjson"|"hang", "count": N, "path": prefix, "delay": s}
                          (slow: answers normally after the delay; hang: says nothing for the delay, then closes
                          without handling the request — a timeout; badjson: 200 with an HTML body, as a captive
                          proxy would answer)
  GET  /_control/state    everything received (without bodies)
  POST /_control/shutdown

Every request is stored in DIR/log/NNNN.json (method, path, query, headers, status, decoded JSON
body) and its raw body in DIR/log/NNNN.raw, so tests can assert on bytes. The chosen port is
printed on stdout as "PORT <n>". The server exits by itself after --max-seconds.
"""
import argparse
import gzip
import json
import os
import socket
import struct
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

STATE = {
    "lock": threading.Lock(),
    "seq": 0,
    "gpid_next": 4711,
    "commands": [],   # queued heartbeat commands
    "fail": [],       # queued failures
    "received": [],   # summaries
}
ARGS = None


def next_seq():
    with STATE["lock"]:
        STATE["seq"] += 1
        return STATE["seq"]


def take_failure(path):
    with STATE["lock"]:
        for f in STATE["fail"]:
            if path.startswith(f.get("path", "/api/")) and f["count"] > 0:
                f["count"] -= 1
                return dict(f)
    return None


class Handler(BaseHTTPRequestHandler):
    server_version = "studio-standin/1"

    def log_message(self, fmt, *a):  # quiet; everything is stored in DIR/log
        if ARGS.verbose:
            sys.stderr.write("studio: " + (fmt % a) + "\n")

    # --- helpers -------------------------------------------------------------------------------
    def reply(self, status, obj=None, text=None):
        # Sent by send_pending() after the request is recorded, so a client that got its answer can
        # immediately find the record on disk.
        body = (json.dumps(obj) if obj is not None else (text or "")).encode()
        self._pending = (status, "application/json" if obj is not None else "text/plain", body)
        self.status_sent = status

    def send_pending(self):
        p = getattr(self, "_pending", None)
        if not p:
            return
        self._pending = None
        status, ctype, body = p
        try:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(body)
        except OSError:
            pass

    def record(self, raw, decoded, note=None):
        seq = next_seq()
        u = urllib.parse.urlsplit(self.path)
        # The token is checked, then replaced before anything is stored, so a test can grep every file
        # under its temp dirs for the token and find only what gpuflame itself wrote.
        def scrub(v):
            return v.replace(ARGS.token, "<token>") if isinstance(v, str) and ARGS.token else v
        rec = {
            "seq": seq, "method": self.command, "path": u.path,
            "query": {k: scrub(v) for k, v in urllib.parse.parse_qsl(u.query, keep_blank_values=True)},
            "headers": {k: scrub(v) for k, v in self.headers.items()},
            "status": getattr(self, "status_sent", None), "note": note,
            "raw_len": len(raw) if raw is not None else None, "body": decoded,
            "time": time.time(),
        }
        os.makedirs(os.path.join(ARGS.dir, "log"), exist_ok=True)
        base = os.path.join(ARGS.dir, "log", "%04d" % seq)
        if raw is not None:
            if ARGS.token and ARGS.token.encode() in raw:
                note = (note or "") + " TOKEN-IN-BODY"
                rec["note"] = note
                raw = raw.replace(ARGS.token.encode(), b"<token>")
            with open(base + ".raw", "wb") as f:
                f.write(raw)
        text = json.dumps(rec)
        if ARGS.token and ARGS.token in text:  # only a body can still hold it: flag it for the tests
            rec["note"] = (rec["note"] or "") + " TOKEN-IN-BODY"
            text = json.dumps(rec).replace(ARGS.token, "<token>")
        tmp = base + ".json.tmp"
        with open(tmp, "w") as f:
            f.write(text)
        os.rename(tmp, base + ".json")
        with STATE["lock"]:
            STATE["received"].append({k: rec[k] for k in ("seq", "method", "path", "status", "note", "raw_len")})
        self.send_pending()

    def fail_if_asked(self):
        f = take_failure(urllib.parse.urlsplit(self.path).path)
        if not f:
            return False
        mode = f.get("mode", "500")
        if mode == "slow":
            time.sleep(float(f.get("delay", 5)))
            return False  # then answer normally (the client may have given up)
        if mode == "hang":
            time.sleep(float(f.get("delay", 5)))
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            self.close_connection = True
            self.status_sent = None
            self.record(None, None, note="injected hang")
            return True
        if mode == "badjson":
            self.reply(200, text="<html><body>proxy login</body></html>")
            self.record(None, None, note="injected badjson")
            return True
        if mode in ("reset", "close"):
            # read a little so the client is mid-request, then reset the connection
            try:
                if mode == "reset":
                    self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            self.close_connection = True
            self.status_sent = None
            self.record(None, None, note="injected " + mode)
            return True
        self.reply(int(mode) if mode.isdigit() else 500, text="injected failure")
        self.record(None, None, note="injected " + mode)
        return True

    def read_body(self):
        n = self.headers.get("Content-Length")
        if n is None:
            return None
        return self.rfile.read(int(n))

    def check_session_headers(self):
        key = self.headers.get("GPROFILER-API-KEY")
        svc = self.headers.get("GPROFILER-SERVICE-NAME")
        if key is None or key != ARGS.token:
            return "Invalid GPROFILER-API-KEY header"
        if svc is None or (ARGS.service and svc != ARGS.service):
            return "Invalid GPROFILER-SERVICE-NAME header"
        return None

    # --- routes --------------------------------------------------------------------------------
    def do_GET(self):
        try:
            self.get()
        finally:
            self.send_pending()

    def do_POST(self):
        try:
            self.post()
        finally:
            self.send_pending()

    def do_PUT(self):
        self.do_POST()

    def get(self):
        path = urllib.parse.urlsplit(self.path).path
        if path == "/_control/state":
            with STATE["lock"]:
                self.reply(200, {"received": STATE["received"], "pending_commands": len(STATE["commands"])})
            return
        if self.fail_if_asked():
            return
        if path == "/big":  # a response of n bytes with a Content-Length (size-cap tests)
            n = int(dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(self.path).query)).get("n", "1000"))
            self.send_response(200)
            self.send_header("Content-Length", str(n))
            self.end_headers()
            chunk = b"x" * 65536
            try:
                while n > 0:
                    self.wfile.write(chunk[:min(n, len(chunk))])
                    n -= len(chunk)
            except OSError:
                pass
            self.record(None, None, note="big")
            return
        if path == "/endless":  # never ends, no Content-Length (the client's cap must stop it)
            self.send_response(200)
            self.end_headers()
            chunk = b"y" * 65536
            deadline = time.time() + 60
            try:
                while time.time() < deadline:
                    self.wfile.write(chunk)
            except OSError:
                pass
            self.close_connection = True
            self.record(None, None, note="endless")
            return
        if path == "/echo":  # echoes what it received (query, headers) as JSON
            u = urllib.parse.urlsplit(self.path)
            self.reply(200, {"raw_query": u.query, "headers": {k: v for k, v in self.headers.items()}})
            self.record(None, None, note="echo")
            return
        if path in ("/api/v1/health_check", "/api/v2/health_check"):
            bad = self.check_session_headers()
            if bad:
                self.reply(400, text=bad)
            else:
                self.reply(200, {"message": "ok"})
            self.record(None, None)
            return
        self.reply(404, text="no route")
        self.record(None, None)

    def post(self):
        path = urllib.parse.urlsplit(self.path).path
        if path.startswith("/_control/"):
            return self.control(path)
        if self.fail_if_asked():
            return
        if path in ("/api/v2/profiles", "/api/v1/profiles"):
            return self.profiles()
        if path == "/api/metrics/heartbeat":
            return self.heartbeat()
        if path == "/api/metrics/command_completion":
            return self.completion()
        if path.startswith("/put/") or path.startswith("/post/"):  # generic sink for the http sink
            raw = self.read_body()
            self.reply(201 if self.command == "PUT" else 200, {"stored": len(raw or b"")})
            self.record(raw, None, note="generic")
            return
        raw = self.read_body()
        self.reply(404, text="no route")
        self.record(raw, None)

    def control(self, path):
        raw = self.read_body() or b"{}"
        req = json.loads(raw or b"{}")
        if path == "/_control/command":
            with STATE["lock"]:
                STATE["commands"].append(req)
            self.reply(200, {"queued": True})
        elif path == "/_control/fail":
            req.setdefault("count", 1)
            with STATE["lock"]:
                STATE["fail"].append(req)
            self.reply(200, {"queued": True})
        elif path == "/_control/shutdown":
            self.reply(200, {"bye": True})
            threading.Thread(target=self.server.shutdown, daemon=True).start()
        else:
            self.reply(404, text="no control route")

    def profiles(self):
        if self.headers.get("Content-Length") is None:
            self.reply(411, text="Length Required")
            self.record(None, None, note="411")
            return
        n = int(self.headers["Content-Length"])
        if n > ARGS.max_len:
            # the body is read first (as a server with a lingering close does): closing on an unread body
            # resets the connection, and the client would see a send error instead of the 413
            self.rfile.read(min(n, 64 << 20))
            self.reply(413, text="Request Entity Too Large")
            self.close_connection = True
            self.record(None, None, note="413 (%d bytes)" % n)
            return
        raw = self.rfile.read(n)
        bad = self.check_session_headers()
        if bad:
            self.reply(400, text=bad)
            self.record(raw, None, note=bad)
            return
        try:
            data = gzip.decompress(raw) if self.headers.get("Content-Encoding") == "gzip" else raw
            body = json.loads(data)
        except Exception as e:  # noqa: BLE001 - report whatever went wrong
            self.reply(400, text="bad body: %s" % e)
            self.record(raw, None, note="bad body")
            return
        if not isinstance(body, dict) or "gpid" not in body:
            self.reply(400, text="missing gpid")
            self.record(raw, body, note="missing gpid")
            return
        profile = body.get("profile")
        first = profile.split("\n", 1)[0] if isinstance(profile, str) else ""
        try:
            if not first.startswith("#"):
                raise ValueError("profile line 1 does not start with #")
            header = json.loads(first[1:])
        except Exception as e:  # noqa: BLE001
            self.reply(400, text="bad profile header: %s" % e)
            self.record(raw, body, note="bad profile header")
            return
        body["_header"] = header
        with STATE["lock"]:
            if body["gpid"] in ("", None):
                gpid = STATE["gpid_next"]
                STATE["gpid_next"] += 1
            else:
                gpid = int(body["gpid"])
        self.reply(200, {"message": "ok", "gpid": gpid})
        self.record(raw, body)

    def heartbeat(self):
        raw = self.read_body()
        if self.headers.get("Authorization") != "Bearer " + ARGS.token:
            self.reply(401, {"detail": "bad token"})
            self.record(raw, None, note="bad bearer")
            return
        body = json.loads(raw or b"{}")
        resp = {"success": True, "message": "Heartbeat received. No new commands."}
        with STATE["lock"]:
            for c in STATE["commands"]:
                if c.get("hostname") and c["hostname"] != body.get("hostname"):
                    continue
                resp = {"success": True, "message": "Heartbeat received. New profiling command available.",
                        "command_id": c["command_id"], "profiling_command": c["profiling_command"]}
                c["repeat"] = c.get("repeat", 1) - 1
                if c["repeat"] <= 0:
                    STATE["commands"].remove(c)
                break
        self.reply(200, resp)
        self.record(raw, body, note=resp.get("command_id"))

    def completion(self):
        raw = self.read_body()
        body = json.loads(raw or b"{}")
        if body.get("status") not in ("completed", "failed"):
            self.reply(422, {"detail": "status must be completed or failed"})
        else:
            self.reply(200, {"success": True})
        self.record(raw, body)


def main():
    global ARGS
    p = argparse.ArgumentParser()
    p.add_argument("--dir", required=True)
    p.add_argument("--token", default="test-token")
    p.add_argument("--service", default="")
    p.add_argument("--max-len", type=int, default=4 * 1024 * 1024)
    p.add_argument("--max-seconds", type=float, default=300)
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--verbose", action="store_true")
    p.add_argument("--tls-cert", help="serve HTTPS with this certificate (PEM)")
    p.add_argument("--tls-key", help="its private key (PEM)")
    p.add_argument("--client-ca", help="require client certificates signed by this CA (mTLS)")
    ARGS = p.parse_args()
    os.makedirs(ARGS.dir, exist_ok=True)
    srv = ThreadingHTTPServer(("127.0.0.1", ARGS.port), Handler)
    srv.daemon_threads = True
    if ARGS.tls_cert:
        import ssl
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(ARGS.tls_cert, ARGS.tls_key)
        if ARGS.client_ca:
            ctx.verify_mode = ssl.CERT_REQUIRED
            ctx.load_verify_locations(ARGS.client_ca)
        srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    print("PORT %d" % srv.server_address[1], flush=True)
    t = threading.Timer(ARGS.max_seconds, srv.shutdown)
    t.daemon = True
    t.start()
    srv.serve_forever(poll_interval=0.2)


if __name__ == "__main__":
    main()
