#!/usr/bin/env bash
# Makes sure Versity's S3 gateway (versitygw, Apache-2.0) is installed for the tiered storage tests
# (test/support/versitygw.ts starts it on demand with its posix backend in a temporary directory).
# Built once from the Go module proxy into ~/.cache/samsa/bin (about 2 minutes on two cores, 80 MB);
# a fast no-op when it is there (or SAMSA_VERSITYGW_BIN names an executable). Without Go, says so
# in one line and exits non-zero.
set -euo pipefail

VERSION=v1.8.0
DIR="${HOME}/.cache/samsa/bin"
BIN="${SAMSA_VERSITYGW_BIN:-$DIR/versitygw}"
[ -x "$BIN" ] && exit 0

if ! command -v go >/dev/null 2>&1; then
  echo "ensure-versitygw: Go is not installed (needed to build github.com/versity/versitygw@$VERSION into $BIN); the S3 tiered storage tests will fail" >&2
  # The pretest goes on: the other tests need no S3 server.
  [ "${1:-}" = "--background" ] && exit 0
  exit 1
fi
mkdir -p "$DIR"
STATUS="$DIR/versitygw.build"
build() {
  if GOBIN="$DIR" GOFLAGS=-mod=mod nice -n 10 go install "github.com/versity/versitygw/cmd/versitygw@$VERSION" >"$STATUS.log" 2>&1 && [ -x "$BIN" ]; then
    echo ok >"$STATUS"
  else
    echo failed >"$STATUS"
    return 1
  fi
}
# --background (npm test's pretest): build while the first test files run; the tiered storage
# tests wait for it (test/support/versitygw.ts reads the status file).
if [ "${1:-}" = "--background" ]; then
  if [ "$(cat "$STATUS" 2>/dev/null)" = "building" ]; then exit 0; fi
  echo building >"$STATUS"
  echo "ensure-versitygw: building versitygw $VERSION from the Go module proxy in the background (once per machine; log $STATUS.log)" >&2
  (build || true) </dev/null >/dev/null 2>&1 &
  disown || true
  exit 0
fi
echo "ensure-versitygw: building versitygw $VERSION from the Go module proxy (once per machine)" >&2
build || { echo "ensure-versitygw: the build failed; see $STATUS.log" >&2; exit 1; }
echo "ensure-versitygw: done ($BIN)" >&2
