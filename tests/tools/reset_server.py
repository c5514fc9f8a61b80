#!/usr/bin/env python3
"""A deliberately bad HTTP server for load-generator tests: it resets every
Nth connection (SO_LINGER 0, so the client gets an RST) and answers the
others with a 2-byte 200 response, one request per connection.
    reset_server.py PORT [N]      (default N = 3)"""
import socket
import struct
import sys
import threading


def serve(port, every):
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", port))
    srv.listen(4096)
    count = 0
    lock = threading.Lock()

    def handle(conn, reset):
        try:
            if reset:
                conn.recv(4096)
                conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            else:
                data = b""
                while b"\r\n\r\n" not in data:
                    chunk = conn.recv(4096)
                    if not chunk:
                        break
                    data += chunk
                conn.sendall(b"HTTP/1.0 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
        except OSError:
            pass
        finally:
            conn.close()

    while True:
        conn, _ = srv.accept()
        with lock:
            count += 1
            reset = count % every == 0
        threading.Thread(target=handle, args=(conn, reset), daemon=True).start()


if __name__ == "__main__":
    serve(int(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 3)
