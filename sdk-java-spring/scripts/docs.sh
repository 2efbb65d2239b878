#!/usr/bin/env bash
# jobwire-spring-boot-starter API reference (make docs): Javadoc of io.jobwire.spring into
# $DOCS_OUT (default: ../build/docs/java-spring), doclint on, any warning fails. Needs this
# commit's jobwire-sdk in ~/.m2 (installed first).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
OUT="${DOCS_OUT:-$ROOT/build/docs/java-spring}"
offline=()
[ -d "$HOME/.m2/repository/org/apache/maven/plugins/maven-javadoc-plugin" ] && offline=(-o)
(cd "$ROOT/sdk-java" && mvn "${offline[@]}" -B -q install -DskipTests -Dmaven.javadoc.skip=true -Dmaven.source.skip=true)
cd "$HERE"
rm -rf "$OUT" target/reports/apidocs
mvn "${offline[@]}" -B -q -Dstyle.color=never javadoc:javadoc -Dmaven.javadoc.failOnWarnings=true "$@"
mkdir -p "$(dirname "$OUT")"
cp -r target/reports/apidocs "$OUT"
