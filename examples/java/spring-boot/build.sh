#!/usr/bin/env bash
# Builds the Spring Boot example inside the jobwire repository: installs io.jobwire:jobwire-sdk
# (../../../sdk-java) and io.jobwire:jobwire-spring-boot-starter (../../../sdk-java-spring) into
# ~/.m2, then packages target/jobwire-spring-boot-example.jar; only when a source is newer than the
# last build (idempotent, quick). An application outside the repository takes the starter from
# Maven Central instead (README.md).
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
SDK="$(cd "$HERE/../../../sdk-java" && pwd)"
STARTER="$(cd "$HERE/../../../sdk-java-spring" && pwd)"
JAR="$HERE/target/jobwire-spring-boot-example.jar"
quick=(-DskipTests -Dmaven.javadoc.skip=true -Dmaven.source.skip=true)
if [ ! -f "$JAR" ] || [ -n "$(find "$SDK/src/main" "$SDK/pom.xml" "$STARTER/src/main" "$STARTER/pom.xml" "$HERE/src" "$HERE/pom.xml" \
     -newer "$JAR" -print -quit)" ]; then
  # the SDK and the starter only when ~/.m2 holds none newer than their sources (`make test-sdk-java`
  # has just installed both)
  M2="${MAVEN_REPO:-$HOME/.m2/repository}/io/jobwire"
  V="$(cat "$HERE/../../../VERSION")"
  for p in "$SDK:jobwire-sdk" "$STARTER:jobwire-spring-boot-starter"; do
    dir="${p%%:*}"; jar="$M2/${p#*:}/$V/${p#*:}-$V.jar"
    if [ ! -f "$jar" ] || [ -n "$(find "$dir/src/main" "$dir/pom.xml" -newer "$jar" -print -quit)" ]; then
      (cd "$dir" && mvn -B -q install "${quick[@]}") >&2
    fi
  done
  (cd "$HERE" && mvn -B -q package "${quick[@]}") >&2
fi
echo "$JAR"
