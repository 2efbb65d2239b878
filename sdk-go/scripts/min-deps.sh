#!/usr/bin/env bash
# sdk-go at the lowest versions its go.mod allows. Go's minimal version selection builds a
# program with the versions its modules require, so the `require` lines of sdk-go/go.mod are
# the floors an application gets. The ordinary suite (scripts/test.sh) builds in the
# repository's go.work, where the engine and the examples raise them; this run leaves the
# workspace (GOWORK=off), fails unless the build selects exactly the go.mod version of every
# direct dependency, then runs go vet and the unit and reference-engine tests.
# Writes $RESULTS/sdk-go.min-deps.gojson.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
root="$(cd "$here/.." && pwd)"
RESULTS="${RESULTS:-$root/.test-results}"
mkdir -p "$RESULTS"
cd "$here"
export GOWORK=off
# go.mod and go.sum must be complete as committed: no silent edit raises a version here.
export GOFLAGS="-mod=readonly${GOFLAGS:+ $GOFLAGS}"

# direct requirements (path version), as written in go.mod
want="$(go mod edit -json | python3 -c '
import json, sys
for r in json.load(sys.stdin).get("Require") or []:
    if not r.get("Indirect"):
        print(r["Path"], r["Version"])')"
[ -n "$want" ] || { echo "sdk-go min-deps: no direct requirement in go.mod" >&2; exit 1; }
# the floors promised in README.md "Compatibility" (rows "| `module` | vX.Y.Z or newer ... |"):
# a new dependency that makes `go mod tidy` raise a requirement fails here until the table says so
documented="$(python3 - README.md <<'PYEOF'
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
section = text.split("## Compatibility", 1)[1].split("\n## ", 1)[0]
rows = re.findall(r"^\| `([a-z0-9.-]+\.[a-z]+/[^`]+)` \| (v\d+\.\d+\.\d+) or newer", section, re.M)
print("\n".join(f"{m} {v}" for m, v in sorted(rows)))
PYEOF
)"
if [ "$(LC_ALL=C sort <<<"$want")" != "$documented" ]; then
  echo "sdk-go min-deps: go.mod's direct requirements differ from README.md Compatibility:" >&2
  diff <(LC_ALL=C sort <<<"$want") <(echo "$documented") >&2 || true
  exit 1
fi
# what the build selects for them
# shellcheck disable=SC2046
got="$(go list -m -f '{{.Path}} {{.Version}}' $(cut -d' ' -f1 <<<"$want"))"
if [ "$want" != "$got" ]; then
  echo "sdk-go min-deps: the build raises a floor of go.mod:" >&2
  diff <(echo "$want") <(echo "$got") >&2 || true
  exit 1
fi
echo "sdk-go min-deps: $(tr '\n' ' ' <<<"$want")"

ENGINE="$root/engine-reference/bin/jobwire-engine"
[ -x "$ENGINE" ] || make -s -C "$root" --no-print-directory engine >/dev/null
go vet ./...
rc=0
go test -json -count=1 -timeout 300s ./... > "$RESULTS/sdk-go.min-deps.gojson" || rc=$?
if [ $rc -ne 0 ]; then
  grep -E '"Action":"fail"' "$RESULTS/sdk-go.min-deps.gojson" | grep -o '"Test":"[^"]*"' | sort -u >&2 || true
fi
python3 - "$RESULTS/sdk-go.min-deps.gojson" <<'PYEOF'
import json, sys
n = {"pass": 0, "fail": 0, "skip": 0}
for line in open(sys.argv[1], encoding="utf-8"):
    try:
        e = json.loads(line)
    except ValueError:
        continue
    if e.get("Test") and e.get("Action") in n:
        n[e["Action"]] += 1
print(f"sdk-go min-deps: {n['pass']} passed, {n['fail']} failed, {n['skip']} skipped")
PYEOF
exit $rc
