#!/usr/bin/env bash
# make release: every artifact of one jobwire version into dist/, byte for byte
# reproducible (run it twice: dist/SHA256SUMS is the same).
#   dist/engine/  jobwire-engine for linux, darwin, windows × amd64, arm64 (CGO off)
#   dist/python/  the jobwire wheel and sdist
#   dist/node/    the @jobwire/sdk and @jobwire/nestjs npm tarballs
#   dist/java/    jobwire-sdk jar, sources jar, javadoc jar and POM; the same for
#                 jobwire-test (the JUnit 5 test kit) and jobwire-spring-boot-starter
#   dist/go/      the sdk-go, sdk-go/jobwiretest and engine-reference modules as the Go module proxy
#                 serves them (zip, mod, info): GOPROXY=file://.../dist/go
# The version is the one in VERSION (tools/release/version.py checks every
# package carries it). Timestamps come from the last commit (SOURCE_DATE_EPOCH).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$ROOT"
V="$(cat VERSION)"
PY=.tools/venv/bin/python
$PY tools/release/version.py --check
export SOURCE_DATE_EPOCH="$(git log -1 --format=%ct)"
STAMP="$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%dT%H:%M:%SZ)"
DIST="${DIST:-$ROOT/dist}"
rm -rf "$DIST"; mkdir -p "$DIST"/{engine,python,node,java,go}

echo "release $V: engine"
# RELEASE_PLATFORMS narrows the engine builds (the smoke test builds one)
for p in ${RELEASE_PLATFORMS:-linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64}; do
  os="${p%/*}"; arch="${p#*/}"; ext=""; [ "$os" = windows ] && ext=".exe"
  (cd engine-reference && CGO_ENABLED=0 GOOS=$os GOARCH=$arch GOWORK=off go build -trimpath -buildvcs=false \
    -ldflags "-s -w -buildid= -X main.version=$V" -o "$DIST/engine/jobwire-engine-$V-$os-$arch$ext" ./cmd/jobwire-engine)
done

echo "release $V: python"
TMP="$(mktemp -d)"; trap 'rm -rf "$TMP"' EXIT
# build from a copy of the committed folder (no caches, no egg-info left behind)
git archive HEAD sdk-python | tar -x -C "$TMP"
$PY -m build --sdist --wheel --outdir "$DIST/python" "$TMP/sdk-python" >"$TMP/python-build.log" 2>&1 \
  || { cat "$TMP/python-build.log"; exit 1; }
$PY tools/release/normalize_sdist.py "$DIST"/python/*.tar.gz

echo "release $V: node"
git archive HEAD sdk-node | tar -x -C "$TMP"
( cd "$TMP/sdk-node" && ln -s "$ROOT/sdk-node/node_modules" node_modules && npm run -s build >/dev/null \
  && npm pack --silent --pack-destination "$DIST/node" >/dev/null )
# the NestJS module: compiled against this commit's SDK (its dev dependency @jobwire/sdk is the
# copy built above, not whatever its node_modules link to)
git archive HEAD sdk-node-nestjs | tar -x -C "$TMP"
[ -d "$ROOT/sdk-node-nestjs/node_modules" ] || (cd "$ROOT/sdk-node-nestjs" && npm ci --no-audit --no-fund --loglevel=error)
mkdir -p "$TMP/nestjs-modules/@jobwire"
for m in "$ROOT"/sdk-node-nestjs/node_modules/* "$ROOT"/sdk-node-nestjs/node_modules/.bin; do
  case "$(basename "$m")" in @jobwire) ;; *) ln -s "$m" "$TMP/nestjs-modules/$(basename "$m")" ;; esac
done
for m in "$ROOT"/sdk-node-nestjs/node_modules/@jobwire/*; do
  [ "$(basename "$m")" = sdk ] || ln -s "$m" "$TMP/nestjs-modules/@jobwire/$(basename "$m")"
done
ln -s "$TMP/sdk-node" "$TMP/nestjs-modules/@jobwire/sdk"
( cd "$TMP/sdk-node-nestjs" && ln -s "$TMP/nestjs-modules" node_modules && npm run -s build >/dev/null \
  && npm pack --silent --pack-destination "$DIST/node" >/dev/null )

echo "release $V: java"
# one reactor: the SDK, the engine API the test kit depends on and the test kit, so each compiles
# against this commit's jobwire-sdk and jobwire-engine, not whatever ~/.m2 holds (one Maven run:
# the SDK is built once)
mkdir "$TMP/java"
git archive HEAD sdk-java sdk-java-test sdk-java-spring packaging/engine/java LICENSE NOTICE | tar -x -C "$TMP/java"
cat > "$TMP/java/pom.xml" <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>
  <groupId>io.jobwire</groupId><artifactId>jobwire-java-release</artifactId><version>$V</version><packaging>pom</packaging>
  <modules><module>sdk-java</module><module>packaging/engine/java</module><module>sdk-java-test</module><module>sdk-java-spring</module></modules>
</project>
POM
( cd "$TMP/java" && mvn -q -B -o package -DskipTests -Djacoco.skip=true -pl sdk-java,sdk-java-test,sdk-java-spring -am \
    -Dproject.build.outputTimestamp="$STAMP" >"$TMP/java-build.log" 2>&1 ) || { cat "$TMP/java-build.log"; exit 1; }
for a in sdk-java:jobwire-sdk sdk-java-test:jobwire-test sdk-java-spring:jobwire-spring-boot-starter; do
  dir="${a%%:*}"; art="${a#*:}"
  for f in "$TMP/java/$dir/target/$art-$V"{,-sources,-javadoc}.jar; do cp "$f" "$DIST/java/"; done
  cp "$TMP/java/$dir/pom.xml" "$DIST/java/$art-$V.pom"
done

echo "release $V: go"
# the SDK, its test kit (a nested module: the SDK's zip leaves it out) and the
# engine (go install .../engine-reference/cmd/jobwire-engine@v$V)
for m in sdk-go sdk-go/jobwiretest engine-reference; do
  (cd tools/release/gomodzip && GOWORK=off go run . -repo "$ROOT" -rev HEAD -subdir "$m" -version "v$V" \
    -out "$DIST/go" -time "$STAMP")
done

# the engine in each package manager's own shape (tools/release/engine-<ecosystem>.sh DIST VERSION)
for hook in tools/release/engine-*.sh; do
  [ -e "$hook" ] || continue
  echo "release $V: $(basename "$hook" .sh)"
  bash "$hook" "$DIST" "$V"
done

(cd "$DIST" && find . -type f ! -name SHA256SUMS | LC_ALL=C sort | sed 's|^\./||' | xargs sha256sum > SHA256SUMS)
echo "release $V: dist/"
(cd "$DIST" && find . -type f ! -name SHA256SUMS | LC_ALL=C sort | sed 's|^\./||' | xargs ls -l | awk '{printf "  %10d  %s\n", $5, $9}')
