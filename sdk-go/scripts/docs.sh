#!/usr/bin/env bash
# Go API reference (make docs): `go doc -all` of the public Go packages (the sdk-go package
# jobwire, its test kit sdk-go/jobwiretest and the engine's embeddable package engine-reference/embedded), one text file each,
# into $DOCS_OUT (default: ../build/docs/go). Fails when `go vet` complains about either package,
# or tools/godoc finds an exported identifier without a doc comment or a doc link ([Name]) that
# does not resolve.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
OUT="${DOCS_OUT:-$ROOT/build/docs/go}"
rm -rf "$OUT"
mkdir -p "$OUT"
status=0
# module folder, package (relative), output file
for spec in "sdk-go . jobwire" "sdk-go/jobwiretest . jobwiretest" "engine-reference ./embedded embedded"; do
  read -r mod pkg name <<<"$spec"
  (cd "$ROOT/$mod" && go vet "$pkg") || status=1
  (cd "$ROOT/$mod" && go doc -all "$pkg" >"$OUT/$name.txt") || status=1
done
# the checker's own tests first (a planted undocumented identifier and broken links must be found)
(cd "$ROOT/tools/godoc" && GOWORK=off go test -count=1 . >/tmp/godoc-test.$$ 2>&1) \
  || { echo "tools/godoc: its tests fail:"; cat /tmp/godoc-test.$$; status=1; }
rm -f /tmp/godoc-test.$$
(cd "$ROOT/tools/godoc" && GOWORK=off go run . "$ROOT/sdk-go" "$ROOT/sdk-go/jobwiretest" "$ROOT/engine-reference/embedded") || status=1
exit $status
