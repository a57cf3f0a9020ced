#!/usr/bin/python3
"""A stand-in APNs server for NostrPushKit's tests: HTTP/2 (python3-h2) over real TLS.

Usage: /usr/bin/python3 Scripts/apns-standin.py --dir DIR

Makes a throwaway CA for this run in DIR (openssl CLI): ca.pem, server.pem/server.key for
127.0.0.1, and client.pem/client.key (a client certificate signed by the same CA, for
certificate auth). Listens on 127.0.0.1 with ALPN "h2" only, and on a plain HTTP/1.1 control
port; prints one JSON line {"port": N, "control": M} once both listen. Exits when its standard
input closes (the test ended) or on SIGTERM.

APNs side: POST /3/device/<token> answers 200 with `apns-id` (the request's, or a fresh UUID),
unless the token is scripted. The control port serves:
  GET  /stats     {"connections", "streams", "requests", "client_certificates", "jwts"}
  GET  /requests  the recorded APNs requests: [{"path", "headers": [[name, value]...], "body"}]
  POST /script    {"<token>": {"status": 410, "reason": "Unregistered", "timestamp": 1}
                   | {"stall": true}} (merged into the script; "times": n answers so n times only)
  POST /goaway    {}: the next APNs request is answered, then its connection gets GOAWAY and is
                  closed (the client must reconnect).
  POST /jwt-key   {"kid", "iss", "pem"}: from then on every request's bearer JWT must be ES256 by
                  that public key with exactly {"alg","kid"} and {"iss","iat"}; else 403
                  InvalidProviderToken (MissingProviderToken without one). Each recorded request
                  notes "jwt_valid" (true, false, or null before a key was given). Once a key is
                  given, a new connection allows 1 concurrent stream until its first valid JWT,
                  then 1000 (as APNs does).
Nothing here is production code; it exists so the tests exercise a real TLS + HTTP/2 peer.
"""

import argparse
import json
import os
import socket
import ssl
import subprocess
import sys
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, utils

import base64
import h2.config
import h2.connection
import h2.events
import h2.settings


def make_ca(directory):
    """The per-run CA, the server certificate for 127.0.0.1 and a client certificate."""

    def run(*arguments):
        subprocess.run(["openssl", *arguments], check=True, cwd=directory,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    run("ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", "ca.key")
    run("req", "-x509", "-new", "-key", "ca.key", "-sha256", "-days", "2", "-subj", "/CN=standin-ca",
        "-out", "ca.pem")
    for name, extension in (("server", "subjectAltName=IP:127.0.0.1,DNS:localhost"),
                            ("client", "extendedKeyUsage=clientAuth")):
        run("ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", name + ".key.sec1")
        run("pkcs8", "-topk8", "-nocrypt", "-in", name + ".key.sec1", "-out", name + ".key")
        run("req", "-new", "-key", name + ".key", "-subj", "/CN=standin-" + name, "-out", name + ".csr")
        with open(os.path.join(directory, name + ".ext"), "w") as handle:
            handle.write(extension + "\n")
        run("x509", "-req", "-in", name + ".csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
            "-days", "2", "-sha256", "-extfile", name + ".ext", "-out", name + ".pem")


class State:
    """Everything the tests read back, under one lock."""

    def __init__(self):
        self.lock = threading.Lock()
        self.connections = 0
        self.streams = 0
        self.requests = []
        self.client_certificates = []
        self.jwts = set()
        self.script = {}
        self.jwt_key = None
        self.goaway_pending = False


STATE = State()
MAX_BODY = 8192


def serve_connection(raw, context):
    try:
        tls = context.wrap_socket(raw, server_side=True)
    except (ssl.SSLError, OSError):
        raw.close()
        return
    if tls.selected_alpn_protocol() != "h2":
        tls.close()
        return
    certificate = tls.getpeercert()
    with STATE.lock:
        STATE.connections += 1
        if certificate:
            subject = dict(item[0] for item in certificate.get("subject", ()))
            STATE.client_certificates.append(subject.get("commonName", ""))
    connection = h2.connection.H2Connection(h2.config.H2Configuration(client_side=False, header_encoding="utf-8"))
    with STATE.lock:
        gated = STATE.jwt_key is not None
    if gated:
        connection.local_settings = h2.settings.Settings(
            client=False, initial_values={h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS: 1})
    connection.initiate_connection()
    if gated:
        # The SETTINGS just written advertise one stream; enforce a wide limit instead, as a
        # lenient server does for the streams a client opened before that SETTINGS reached it
        # (h2 would otherwise raise TooManyStreamsError and this thread would drop the whole
        # connection, failing every stream on it — not what APNs does).
        connection.local_settings = h2.settings.Settings(
            client=False, initial_values={h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS: 1000})
    flags = {"gated": gated, "closing": False}
    tls.sendall(connection.data_to_send())
    streams = {}
    try:
        while True:
            data = tls.recv(65536)
            if not data:
                break
            for event in connection.receive_data(data):
                if isinstance(event, h2.events.RequestReceived):
                    streams[event.stream_id] = {"headers": event.headers, "body": b""}
                    with STATE.lock:
                        STATE.streams += 1
                elif isinstance(event, h2.events.DataReceived):
                    stream = streams.get(event.stream_id)
                    if stream is not None and len(stream["body"]) + len(event.data) <= MAX_BODY:
                        stream["body"] += event.data
                    connection.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
                elif isinstance(event, h2.events.StreamEnded):
                    stream = streams.pop(event.stream_id, None)
                    if stream is not None:
                        answer(connection, event.stream_id, stream, flags)
                elif isinstance(event, h2.events.ConnectionTerminated):
                    raise ConnectionError("terminated")
            tls.sendall(connection.data_to_send())
            if flags["closing"]:
                break
    except (ssl.SSLError, OSError, ConnectionError, h2.exceptions.ProtocolError):
        pass
    finally:
        try:
            tls.close()
        except OSError:
            pass


def b64url(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def jwt_is_valid(jwt, key):
    """Whether `jwt` is ES256 by key["public"] with exactly alg/kid and iss/iat, as APNs wants."""
    parts = jwt.split(".")
    if len(parts) != 3:
        return False
    try:
        header = json.loads(b64url(parts[0]))
        claims = json.loads(b64url(parts[1]))
        signature = b64url(parts[2])
    except ValueError:
        return False
    if sorted(header) != ["alg", "kid"] or header["alg"] != "ES256" or header["kid"] != key["kid"]:
        return False
    if sorted(claims) != ["iat", "iss"] or claims["iss"] != key["iss"] or type(claims["iat"]) is not int:
        return False
    if len(signature) != 64:
        return False
    der = utils.encode_dss_signature(int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big"))
    try:
        key["public"].verify(der, (parts[0] + "." + parts[1]).encode(), ec.ECDSA(hashes.SHA256()))
        return True
    except InvalidSignature:
        return False


def answer(connection, stream_id, stream, flags):
    headers = dict(stream["headers"])
    path = headers.get(":path", "")
    apns_id = headers.get("apns-id") or str(uuid.uuid4()).upper()
    with STATE.lock:
        authorization = headers.get("authorization", "")
        jwt = authorization[len("bearer "):] if authorization.startswith("bearer ") else None
        if jwt is not None:
            STATE.jwts.add(jwt)
        key = STATE.jwt_key
        jwt_valid = None if key is None else (jwt is not None and jwt_is_valid(jwt, key))
        STATE.requests.append({"path": path, "headers": [list(pair) for pair in stream["headers"]],
                               "body": stream["body"].decode("utf-8", "replace"), "jwt_valid": jwt_valid})
        token = path[len("/3/device/"):] if path.startswith("/3/device/") else None
        scripted = STATE.script.get(token, {}) if token is not None else {}
        if "times" in scripted:
            scripted = dict(scripted)
            STATE.script[token]["times"] -= 1
            if STATE.script[token]["times"] <= 0:
                del STATE.script[token]
    if headers.get(":method") != "POST" or token is None:
        send(connection, stream_id, 405, apns_id, {"reason": "MethodNotAllowed"})
        return
    if jwt_valid is False:
        reason = "InvalidProviderToken" if jwt is not None else "MissingProviderToken"
        send(connection, stream_id, 403, apns_id, {"reason": reason})
        return
    if jwt_valid and flags["gated"]:
        flags["gated"] = False
        connection.update_settings({h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS: 1000})
    if scripted.get("stall"):
        return
    status = int(scripted.get("status", 200))
    if status == 200:
        send(connection, stream_id, 200, apns_id, None)
        with STATE.lock:
            goaway = STATE.goaway_pending
            STATE.goaway_pending = False
        if goaway:
            connection.close_connection(last_stream_id=stream_id)
            flags["closing"] = True
        return
    body = {"reason": scripted.get("reason", "")}
    if "timestamp" in scripted:
        body["timestamp"] = scripted["timestamp"]
    send(connection, stream_id, status, apns_id, body)


def send(connection, stream_id, status, apns_id, body):
    payload = b"" if body is None else json.dumps(body, separators=(",", ":")).encode()
    headers = [(":status", str(status)), ("apns-id", apns_id)]
    if payload:
        headers += [("content-type", "application/json"), ("content-length", str(len(payload)))]
    connection.send_headers(stream_id, headers, end_stream=not payload)
    if payload:
        connection.send_data(stream_id, payload, end_stream=True)


class Control(BaseHTTPRequestHandler):
    def log_message(self, *arguments):
        pass

    def reply(self, value):
        body = json.dumps(value, separators=(",", ":")).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        with STATE.lock:
            if self.path == "/stats":
                value = {"connections": STATE.connections, "streams": STATE.streams,
                         "requests": len(STATE.requests), "client_certificates": list(STATE.client_certificates),
                         "jwts": len(STATE.jwts)}
            elif self.path == "/requests":
                value = list(STATE.requests)
            else:
                value = None
        if value is None:
            self.send_error(404)
        else:
            self.reply(value)

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        value = json.loads(self.rfile.read(length) or b"{}")
        if self.path == "/goaway":
            with STATE.lock:
                STATE.goaway_pending = True
        elif self.path == "/jwt-key":
            public = serialization.load_pem_public_key(value["pem"].encode())
            with STATE.lock:
                STATE.jwt_key = {"kid": value["kid"], "iss": value["iss"], "public": public}
        else:
            with STATE.lock:
                STATE.script.update(value)
        self.reply({"status": "ok"})


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", required=True)
    arguments = parser.parse_args()
    make_ca(arguments.dir)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.load_cert_chain(os.path.join(arguments.dir, "server.pem"), os.path.join(arguments.dir, "server.key"))
    context.load_verify_locations(os.path.join(arguments.dir, "ca.pem"))
    context.verify_mode = ssl.CERT_OPTIONAL
    context.set_alpn_protocols(["h2"])
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(128)
    control = ThreadingHTTPServer(("127.0.0.1", 0), Control)
    control.daemon_threads = True
    threading.Thread(target=control.serve_forever, daemon=True).start()
    print(json.dumps({"port": listener.getsockname()[1], "control": control.server_address[1]}), flush=True)

    def accept():
        while True:
            raw, _ = listener.accept()
            threading.Thread(target=serve_connection, args=(raw, context), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    sys.stdin.read()
    os._exit(0)


if __name__ == "__main__":
    main()
