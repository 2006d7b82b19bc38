#!/usr/bin/env python3
"""A deliberately broken HTTP server for tests/cli/test_hostile*.sh (python3 stdlib, loopback only).
  --mode notjson   every request: 200 with an HTML body (not JSON)
  --mode huge      200, Content-Length 100 MiB, streams zeros until the client hangs up
  --mode endless   200 headers, then one byte a second, never ending (until --max-seconds)
  --mode garbage   not HTTP at all: random bytes, then close
Prints "PORT <n>"; exits after --max-seconds (default 60) whatever happens."""
import argparse, os, socket, sys, threading, time

def handle(conn, mode, deadline):
    try:
        conn.settimeout(5)
        data = b""
        while b"\r\n\r\n" not in data and len(data) < 1 << 20:
            chunk = conn.recv(65536)
            if not chunk:
                break
            data += chunk
        head, _, body = data.partition(b"\r\n\r\n")
        for line in head.split(b"\r\n"):
            if line.lower().startswith(b"content-length:"):
                need = int(line.split(b":")[1]) - len(body)
                while need > 0:
                    chunk = conn.recv(min(need, 65536))
                    if not chunk:
                        break
                    need -= len(chunk)
        if mode == "notjson":
            b = b"<html><body>502 Bad Gateway (proxy)</body></html>"
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: %d\r\nConnection: close\r\n\r\n" % len(b) + b)
        elif mode == "huge":
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n" % (100 << 20))
            block = b"[" + b"0," * 32767 + b"0"
            sent = 0
            while sent < (100 << 20) and time.time() < deadline:
                conn.sendall(block[: min(len(block), (100 << 20) - sent)])
                sent += len(block)
        elif mode == "endless":
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
            while time.time() < deadline:
                conn.sendall(b"1\r\n \r\n")
                time.sleep(1)
        elif mode == "garbage":
            conn.sendall(os.urandom(4096))
    except OSError:
        pass
    finally:
        try:
            conn.close()
        except OSError:
            pass

def main():
    p = argparse.ArgumentParser()
    p.add_argument("--mode", required=True, choices=["notjson", "huge", "endless", "garbage"])
    p.add_argument("--max-seconds", type=float, default=60)
    a = p.parse_args()
    deadline = time.time() + a.max_seconds
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", 0))
    s.listen(16)
    s.settimeout(0.5)
    print("PORT", s.getsockname()[1], flush=True)
    while time.time() < deadline:
        try:
            c, _ = s.accept()
        except socket.timeout:
            continue
        threading.Thread(target=handle, args=(c, a.mode, deadline), daemon=True).start()
    sys.exit(0)

if __name__ == "__main__":
    main()
