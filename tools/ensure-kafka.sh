#!/usr/bin/env bash
# Makes sure real Apache Kafka can run for the differential tests: a Java runtime (17+), Maven,
# and the jars of the release pinned in tools/kafka/pom.xml (broker, tools, Java client),
# resolved from Maven Central into ~/.cache/samsa. Idempotent, and a fast no-op when all is there.
# Installs java and mvn with apt-get when missing (as root, or through sudo -n); if that is
# impossible it says so in one line and exits non-zero.
set -euo pipefail
cd "$(dirname "$0")/.."

fail() {
  echo "ensure-kafka: $*" >&2
  exit 1
}

missing=()
command -v java >/dev/null 2>&1 || missing+=(openjdk-17-jre-headless)
command -v mvn >/dev/null 2>&1 || missing+=(maven)
if [ "${#missing[@]}" -gt 0 ]; then
  SUDO=()
  if [ "${EUID:-$(id -u)}" != "0" ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true >/dev/null 2>&1; then SUDO=(sudo -n); else
      fail "${missing[*]} missing, and this user is not root and cannot sudo without a password"
    fi
  fi
  command -v apt-get >/dev/null 2>&1 || fail "${missing[*]} missing and apt-get is not available"
  echo "ensure-kafka: installing ${missing[*]} with apt-get" >&2
  export DEBIAN_FRONTEND=noninteractive
  "${SUDO[@]}" apt-get update -qq </dev/null >&2 || fail "apt-get update failed"
  "${SUDO[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" </dev/null >&2 || fail "apt-get install ${missing[*]} failed"
fi

# Resolves the pinned release once (a no-op when cached); prints nothing on success.
node --import tsx tools/kafka/kafka.ts classpath >/dev/null || fail "could not resolve Apache Kafka's jars with Maven (see above)"
