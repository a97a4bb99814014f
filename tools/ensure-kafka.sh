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
  # shellcheck source=tools/lib/apt-install.sh
  . tools/lib/apt-install.sh
  apt_install ensure-kafka "${missing[@]}"
fi

# Resolves the pinned release once (a no-op when cached); prints nothing on success.
node --import tsx tools/kafka/kafka.ts classpath >/dev/null || fail "could not resolve Apache Kafka's jars with Maven (see above)"

# Kafka Streams and RocksDB of the same release, for compat-tests/frameworks.test.ts, and MirrorMaker 2
# (its own classpath) for compat-tests/mirror-maker.test.ts (tools/kafka/frameworks.ts).
node --import tsx tools/kafka/frameworks.ts >/dev/null || fail "could not resolve Kafka Streams' or MirrorMaker 2's jars with Maven (see above)"

# A class-data-sharing archive of the Kafka tools' classes for this Java runtime (tools/kafka/kafka.ts,
# cdsArchive): every JVM the tests start with Kafka's classpath maps them instead of loading them.
# Made once (a few seconds); a runtime that cannot dump one only starts slower.
node --import tsx tools/kafka/kafka.ts cds >/dev/null || true
