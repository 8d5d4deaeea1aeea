#!/usr/bin/env python3
"""Signs requests with botocore, a second implementation for AWSSignatureBotocoreTests.

Reads a JSON array of requests from the file named by the first argument (standard input when
there is none, or it is "-") and writes a JSON array with one answer per request, in order, to
the file named by the second argument (standard output when there is none).

A request: {"kind": "sign" | "presign" | "sigv2", "method", "url" (its path already encoded as
botocore's serializer encodes keys: quote(key, safe="/~")), "params": [[name, value], ...] (raw,
botocore encodes them), "headers": [[name, value], ...], "body_path" (a file, or null),
"unsigned" (true: UNSIGNED-PAYLOAD), "access_key", "secret_key", "token" (or null), "region",
"timestamp" ("20130524T000000Z"), "expires" (presign), "auth_path" and "date" (sigv2)}.

An answer: {"authorization", "x-amz-date", "x-amz-content-sha256"} for "sign" and "sigv2",
{"url"} for "presign".

Exits 3 with a message on standard error when botocore cannot be imported.
"""
import datetime
import json
import sys

try:
    import botocore
    import botocore.auth
    from botocore.awsrequest import AWSRequest
    from botocore.config import Config
    from botocore.credentials import Credentials
except ImportError as error:  # The Swift test turns this into a failure that says what to install.
    sys.stderr.write(f"botocore cannot be imported by {sys.executable}: {error}\n")
    sys.exit(3)


def frozen(timestamp):
    """botocore's SigV4 signers read the time through botocore.auth.get_current_datetime."""
    moment = datetime.datetime.strptime(timestamp, "%Y%m%dT%H%M%SZ")
    return lambda *args, **kwargs: moment


class FixedDateHmacV1Auth(botocore.auth.HmacV1Auth):
    """HmacV1Auth always writes the Date header with the current time; this one writes ours."""

    def __init__(self, credentials, date):
        super().__init__(credentials)
        self.date = date

    def _get_date(self):
        return self.date


def answer(request):
    credentials = Credentials(request["access_key"], request["secret_key"], request.get("token"))
    kind = request["kind"]
    body = open(request["body_path"], "rb") if request.get("body_path") else b""
    try:
        aws = AWSRequest(
            method=request["method"],
            url=request["url"],
            headers=dict(request.get("headers", [])),
            params=[tuple(pair) for pair in request.get("params", [])],
            data=body,
        )
        if kind == "sigv2":
            signer = FixedDateHmacV1Auth(credentials, request["date"])
            aws.auth_path = request["auth_path"]
            signer.add_auth(aws)
            return {"authorization": aws.headers["Authorization"]}
        botocore.auth.get_current_datetime = frozen(request["timestamp"])
        if kind == "presign":
            signer = botocore.auth.S3SigV4QueryAuth(
                credentials, "s3", request["region"], expires=request["expires"]
            )
            signer.add_auth(aws)
            return {"url": aws.url}
        if request.get("unsigned"):
            aws.context["client_config"] = Config(s3={"payload_signing_enabled": False})
        botocore.auth.S3SigV4Auth(credentials, "s3", request["region"]).add_auth(aws)
        return {
            "authorization": aws.headers["Authorization"],
            "x-amz-date": aws.headers["X-Amz-Date"],
            "x-amz-content-sha256": aws.headers["X-Amz-Content-SHA256"],
        }
    finally:
        if not isinstance(body, bytes):
            body.close()


def main():
    source = sys.argv[1] if len(sys.argv) > 1 else "-"
    with (sys.stdin if source == "-" else open(source, encoding="utf-8")) as stream:
        requests = json.load(stream)
    answers = [answer(request) for request in requests]
    if len(sys.argv) > 2:
        with open(sys.argv[2], "w", encoding="utf-8") as stream:
            json.dump(answers, stream, ensure_ascii=False)
    else:
        json.dump(answers, sys.stdout, ensure_ascii=False)
        sys.stdout.write("\n")


if __name__ == "__main__":
    main()
