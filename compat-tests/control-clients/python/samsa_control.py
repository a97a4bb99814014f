"""A tiny client for Samsa's test control over HTTP (`samsa start --control`; docs/test-control.md).

Standard library only. Every method is one call to /control/... and returns the decoded JSON;
a refused call raises ControlError with the broker's message.

    from samsa_control import SamsaControl
    control = SamsaControl("http://127.0.0.1:9644")
    rule = control.inject_error("Produce", "NOT_LEADER_OR_FOLLOWER", count=2)
    ...
    control.remove_rule(rule)
    control.reset()
"""
import json
import urllib.error
import urllib.request


class ControlError(Exception):
    def __init__(self, status, message):
        super().__init__(f"{status}: {message}")
        self.status = status


class SamsaControl:
    def __init__(self, http_url, timeout=60.0):
        self.base = http_url.rstrip("/") + "/control"
        self.timeout = timeout

    def _call(self, method, path, body=None):
        data = None if body is None else json.dumps({k: v for k, v in body.items() if v is not None}).encode()
        req = urllib.request.Request(self.base + path, data=data, method=method, headers={"content-type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as res:
                return json.loads(res.read() or b"{}")
        except urllib.error.HTTPError as e:
            raw = e.read()
            try:
                message = json.loads(raw).get("error", raw.decode())
            except ValueError:
                message = raw.decode(errors="replace")
            raise ControlError(e.code, message) from None

    # Rules: each returns an id for remove_rule.
    def inject_error(self, api, error, count=1, topic=None, partition=None, client_id=None, connection_id=None):
        return self._call("POST", "/inject-error", {"api": api, "error": error, "count": count, "topic": topic, "partition": partition,
                                                    "clientId": client_id, "connectionId": connection_id})["id"]

    def add_latency(self, api, ms, count=None, client_id=None):
        return self._call("POST", "/latency", {"api": api, "ms": ms, "count": count, "clientId": client_id})["id"]

    def drop_next_request(self, api=None, count=1, client_id=None):
        return self._call("POST", "/drop", {"api": api, "count": count, "clientId": client_id})["id"]

    def remove_rule(self, rule_id):
        return self._call("DELETE", f"/rules/{rule_id}")["hits"]

    # Holding a request until the test lets it go.
    def hold_next_request(self, api=None, client_id=None):
        return self._call("POST", "/hold", {"api": api, "clientId": client_id})["id"]

    def wait_held(self, hold_id, timeout_ms=10000):
        return self._call("POST", f"/holds/{hold_id}/wait", {"timeoutMs": timeout_ms})

    def release(self, hold_id):
        self._call("POST", f"/holds/{hold_id}/release", {})

    def drop_held(self, hold_id):
        self._call("POST", f"/holds/{hold_id}/drop", {})

    # Recording requests and responses.
    def record(self, apis=None):
        return self._call("POST", "/record", {"apis": apis})["id"]

    def exchanges(self, recording_id):
        return self._call("GET", f"/recordings/{recording_id}")["exchanges"]

    def stop_recording(self, recording_id):
        self._call("DELETE", f"/recordings/{recording_id}")

    # Connections, waits, reset.
    def disconnect_all(self):
        self._call("POST", "/disconnect-all", {})

    def connections(self):
        return self._call("GET", "/connections")

    def wait_for_high_watermark(self, topic, partition, offset, timeout_ms=10000):
        self._call("POST", "/wait/high-watermark", {"topic": topic, "partition": partition, "offset": offset, "timeoutMs": timeout_ms})

    def wait_for_group_stable(self, group_id, timeout_ms=10000):
        return self._call("POST", "/wait/group-stable", {"groupId": group_id, "timeoutMs": timeout_ms})

    def wait_for_committed_offset(self, group_id, topic, partition, offset, timeout_ms=10000):
        self._call("POST", "/wait/committed-offset", {"groupId": group_id, "topic": topic, "partition": partition, "offset": offset, "timeoutMs": timeout_ms})

    def reset(self):
        self._call("POST", "/reset", {})
