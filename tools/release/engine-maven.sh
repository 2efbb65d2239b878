#!/usr/bin/env bash
# The engine for Maven (release.sh runs it: engine-maven.sh DIST VERSION), into DIST/engine-maven/:
#   jobwire-engine-V.jar, -sources.jar, -javadoc.jar, .pom   io.jobwire:jobwire-engine, the
#       JobwireEngine API (packaging/engine/java), built from the last commit like the Java SDK
#   jobwire-engine-V-<classifier>.jar   one per binary in DIST/engine/, holding
#       io/jobwire/engine/<classifier>/jobwire-engine[.exe]; classifiers are os-maven-plugin's
#       names (linux-x86_64, osx-aarch_64, windows-x86_64, ...)
# Reproducible: every entry carries the last commit's time (SOURCE_DATE_EPOCH), in a fixed order.
set -euo pipefail
DIST="$1"; V="$2"
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$ROOT"
: "${SOURCE_DATE_EPOCH:=$(git log -1 --format=%ct)}"
STAMP="$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%dT%H:%M:%SZ)"
OUT="$DIST/engine-maven"
rm -rf "$OUT"; mkdir -p "$OUT"
TMP="$(mktemp -d)"; trap 'rm -rf "$TMP"' EXIT

# the API jar, its sources, javadoc and POM
mkdir "$TMP/src"
git archive HEAD packaging/engine/java LICENSE NOTICE | tar -x -C "$TMP/src"
( cd "$TMP/src/packaging/engine/java" && mvn -o -q -B package -DskipTests \
    -Dproject.build.outputTimestamp="$STAMP" >"$TMP/build.log" 2>&1 ) || { cat "$TMP/build.log"; exit 1; }
for f in "$TMP"/src/packaging/engine/java/target/jobwire-engine-"$V"{,-sources,-javadoc}.jar; do cp "$f" "$OUT/"; done
cp "$TMP/src/packaging/engine/java/pom.xml" "$OUT/jobwire-engine-$V.pom"

# one classifier jar per engine binary
n=0
for bin in "$DIST"/engine/jobwire-engine-"$V"-*; do
  [ -e "$bin" ] || continue
  plat="${bin##*/jobwire-engine-$V-}"; ext=""
  case "$plat" in *.exe) ext=".exe"; plat="${plat%.exe}" ;; esac
  os="${plat%-*}"; arch="${plat#*-}"
  case "$os" in linux) os=linux ;; darwin) os=osx ;; windows) os=windows ;; *) echo "engine-maven: unknown OS in $bin" >&2; exit 1 ;; esac
  case "$arch" in amd64) arch=x86_64 ;; arm64) arch=aarch_64 ;; *) echo "engine-maven: unknown CPU in $bin" >&2; exit 1 ;; esac
  c="$os-$arch"; d="$TMP/jar-$c"
  mkdir -p "$d/META-INF" "$d/io/jobwire/engine/$c"
  cp LICENSE NOTICE "$d/META-INF/"
  cp "$bin" "$d/io/jobwire/engine/$c/jobwire-engine$ext"
  printf 'Manifest-Version: 1.0\nCreated-By: jobwire release\nImplementation-Title: jobwire-engine %s\nImplementation-Version: %s\n' \
    "$c" "$V" > "$TMP/manifest-$c"
  jar --create --file "$OUT/jobwire-engine-$V-$c.jar" --manifest "$TMP/manifest-$c" --date="$STAMP" \
    -C "$d" META-INF/LICENSE -C "$d" META-INF/NOTICE -C "$d" "io/jobwire/engine/$c/jobwire-engine$ext"
  n=$((n + 1))
done
[ "$n" -gt 0 ] || { echo "engine-maven: no engine binaries in $DIST/engine" >&2; exit 1; }
