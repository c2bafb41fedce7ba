#!/usr/bin/env python3
"""An OTLP/HTTP logs receiver on 127.0.0.1 for TelemetryKitOpenTelemetry's tests.

Every body is decoded with the OpenTelemetry project's own generated classes (PyPI
`opentelemetry-proto`), not with TelemetryKit's code, and strictly: a body with an unknown
field, a malformed encoding, invalid UTF-8, a base64 id in OTLP JSON, a snake_case member or
a duplicate attribute key is answered 400 and recorded as an error.

Faults are scripted by the test (POST /control/faults, a JSON list, served in order, one per
export): "status:503", "status:429:retry-after:1", "status:400", "partial:2:message",
"reset" (the connection is reset before any answer), "stall:3" (no answer for 3 s, then a
reset). Exports answered with a fault are decoded too, but their records are not kept, except
for a partial success, whose records arrived.

GET /control/state returns what arrived: kept records in a normalised form, the errors, the
faults served and how many exports came. The process prints "PORT <n>" once it listens, and
ends when its standard input closes (the test ended) or after --lifetime seconds.
"""

import argparse
import base64
import gzip
import json
import math
import re
import socket
import struct
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from google.protobuf import json_format
from google.protobuf.message import DecodeError
from google.protobuf.unknown_fields import UnknownFieldSet
from opentelemetry.proto.collector.logs.v1 import logs_service_pb2

HEX_ID = {"traceId": 32, "spanId": 16}
LOCK = threading.Lock()
STATE = {"exports": 0, "records": [], "errors": [], "faults": [], "served": []}


class Refused(Exception):
    pass


def check_no_unknown_fields(message, path="ExportLogsServiceRequest"):
    if len(UnknownFieldSet(message)) > 0:
        raise Refused(f"unknown field(s) in {path}")
    for field, value in message.ListFields():
        if field.type != field.TYPE_MESSAGE:
            continue
        if field.is_repeated:
            for index, item in enumerate(value):
                check_no_unknown_fields(item, f"{path}.{field.name}[{index}]")
        else:
            check_no_unknown_fields(value, f"{path}.{field.name}")


def hex_ids_to_base64(node):
    """OTLP JSON writes ids as hex; protobuf's JSON mapping reads bytes as base64."""
    if isinstance(node, dict):
        for key, value in list(node.items()):
            if "_" in key:
                raise Refused(f"member '{key}' is not lowerCamelCase (OTLP JSON)")
            if key in HEX_ID:
                if not isinstance(value, str) or not re.fullmatch(r"[0-9a-f]{%d}" % HEX_ID[key], value):
                    raise Refused(f"{key} '{value}' is not {HEX_ID[key]} lowercase hex digits")
                node[key] = base64.b64encode(bytes.fromhex(value)).decode()
            else:
                hex_ids_to_base64(value)
    elif isinstance(node, list):
        for item in node:
            hex_ids_to_base64(item)


def decode(body, content_type):
    request = logs_service_pb2.ExportLogsServiceRequest()
    if content_type == "application/x-protobuf":
        try:
            request.ParseFromString(body)
        except DecodeError as error:
            raise Refused(f"malformed protobuf: {error}")
        check_no_unknown_fields(request)
        return request, "protobuf"
    if content_type == "application/json":
        try:
            document = json.loads(body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as error:
            raise Refused(f"malformed JSON: {error}")
        hex_ids_to_base64(document)
        try:
            json_format.ParseDict(document, request, ignore_unknown_fields=False)
        except json_format.ParseError as error:
            raise Refused(f"not an ExportLogsServiceRequest: {error}")
        return request, "json"
    raise Refused(f"unsupported Content-Type '{content_type}'")


def any_value(value):
    kind = value.WhichOneof("value")
    if kind == "string_value":
        return ["string", value.string_value]
    if kind == "bool_value":
        return ["bool", "true" if value.bool_value else "false"]
    if kind == "int_value":
        return ["int", str(value.int_value)]
    if kind == "double_value":
        number = value.double_value
        return ["double", repr(number) if math.isfinite(number) else str(number)]
    raise Refused(f"attribute value of unexpected kind {kind}")


def attributes(key_values, where):
    result = {}
    for key_value in key_values:
        if key_value.key in result:
            raise Refused(f"duplicate attribute key '{key_value.key}' in {where}")
        result[key_value.key] = any_value(key_value.value)
    return result


def normalise(request, encoding, gzipped):
    records = []
    for resource_logs in request.resource_logs:
        resource = {key: value[1] for key, value in attributes(resource_logs.resource.attributes, "resource").items()}
        for scope_logs in resource_logs.scope_logs:
            for record in scope_logs.log_records:
                records.append(
                    {
                        "eventName": record.event_name,
                        "timeUnixNano": record.time_unix_nano,
                        "observedTimeUnixNano": record.observed_time_unix_nano,
                        "severityNumber": record.severity_number,
                        "severityText": record.severity_text,
                        "traceId": record.trace_id.hex(),
                        "spanId": record.span_id.hex(),
                        "flags": record.flags,
                        "attributes": attributes(record.attributes, f"log record '{record.event_name}'"),
                        "resource": resource,
                        "scope": [scope_logs.scope.name, scope_logs.scope.version],
                        "encoding": encoding,
                        "gzip": gzipped,
                    }
                )
    return records


def answer_body(content_type, rejected=0, message=""):
    response = logs_service_pb2.ExportLogsServiceResponse()
    if rejected or message:
        response.partial_success.rejected_log_records = rejected
        response.partial_success.error_message = message
    if content_type == "application/json":
        return json.dumps(json_format.MessageToDict(response)).encode()
    return response.SerializeToString()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *arguments):
        pass

    def reply(self, status, body=b"", content_type="text/plain", headers=()):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def reset(self):
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.connection.close()
        self.close_connection = True

    def do_GET(self):
        if self.path != "/control/state":
            self.reply(404)
            return
        with LOCK:
            body = json.dumps(STATE).encode()
        self.reply(200, body, "application/json")

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if self.path == "/control/faults":
            with LOCK:
                STATE["faults"].extend(json.loads(body))
            self.reply(204)
            return
        if self.path != "/v1/logs":
            self.reply(404)
            return
        content_type = (self.headers.get("Content-Type") or "").split(";")[0].strip()
        gzipped = self.headers.get("Content-Encoding") == "gzip"
        try:
            if gzipped:
                try:
                    body = gzip.decompress(body)
                except (OSError, EOFError) as error:
                    raise Refused(f"malformed gzip: {error}")
            elif self.headers.get("Content-Encoding") not in (None, "identity"):
                raise Refused(f"unsupported Content-Encoding '{self.headers.get('Content-Encoding')}'")
            request, encoding = decode(body, content_type)
            records = normalise(request, encoding, gzipped)
        except Exception as error:  # a Refused, or a receiver bug: either fails the test
            with LOCK:
                STATE["exports"] += 1
                STATE["errors"].append(str(error))
            self.reply(400, str(error).encode())
            return
        with LOCK:
            STATE["exports"] += 1
            fault = STATE["faults"].pop(0) if STATE["faults"] else None
            if fault:
                STATE["served"].append(fault)
            if fault is None or fault.startswith("partial:"):
                STATE["records"].extend(records)
        if fault is None:
            self.reply(200, answer_body(content_type), content_type)
        elif fault.startswith("partial:"):
            _, rejected, message = fault.split(":", 2)
            self.reply(200, answer_body(content_type, int(rejected), message), content_type)
        elif fault.startswith("status:"):
            parts = fault.split(":")
            headers = [("Retry-After", parts[3])] if len(parts) == 4 and parts[2] == "retry-after" else []
            self.reply(int(parts[1]), f"injected {parts[1]}".encode(), headers=headers)
        elif fault == "reset":
            self.reset()
        elif fault.startswith("stall:"):
            time.sleep(float(fault.split(":")[1]))
            self.reset()
        else:
            self.reply(500, f"unknown fault '{fault}'".encode())


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lifetime", type=float, default=600)
    arguments = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print(f"PORT {server.server_address[1]}", flush=True)

    stdin_closed = threading.Event()

    def wait_for_stdin_to_close():
        sys.stdin.read()
        stdin_closed.set()

    threading.Thread(target=wait_for_stdin_to_close, daemon=True).start()
    stdin_closed.wait(arguments.lifetime)
    server.shutdown()
    server.server_close()


if __name__ == "__main__":
    main()
