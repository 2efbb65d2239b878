#!/usr/bin/env bash
# sdk-java API reference (make docs): Javadoc of the public packages (io.jobwire; the internal
# packages and the generated gRPC code, io.jobwire.internal* and io.jobwire.stream*, are
# excluded in pom.xml) into $DOCS_OUT (default: ../build/docs/java). doclint runs with every
# group on (missing comments, broken references, HTML, syntax) and any warning fails the run.
# The first run downloads maven-javadoc-plugin into ~/.m2; later runs work offline.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
OUT="${DOCS_OUT:-$ROOT/build/docs/java}"
cd "$HERE"
offline=()
[ -d "$HOME/.m2/repository/org/apache/maven/plugins/maven-javadoc-plugin" ] && offline=(-o)
rm -rf "$OUT" target/reports/apidocs
# generate-sources: the generated gRPC classes the public API refers to; javadoc:javadoc does not
# compile. maven.javadoc.failOnWarnings: only here, so a doc warning fails `make docs`/`make test`
# and not a release build.
mvn "${offline[@]}" -B -q -Dstyle.color=never generate-sources javadoc:javadoc -Dmaven.javadoc.failOnWarnings=true "$@"
mkdir -p "$(dirname "$OUT")"
cp -r target/reports/apidocs "$OUT"
