#!/usr/bin/env bash
# sdk-python at the lowest versions its pyproject.toml allows: a throwaway venv in
# sdk-python/build/min-deps-venv gets each runtime dependency at the lower bound of its range
# (grpcio>=X -> grpcio==X), the test tools, and the SDK itself with --no-deps; then pytest runs
# the unit, fake-gateway and reference-engine tests. Writes $RESULTS/sdk-python.min-deps.xml.
# The lowest grpcio has wheels for CPython 3.9-3.11 (run it with PYTHON=python3.11 where
# python3 is newer: grpcio 1.49.1 does not install there, and pip says so).
# Extra arguments go to pytest.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
RESULTS="${RESULTS:-$ROOT/.test-results}"
mkdir -p "$RESULTS"
cd "$HERE"

PYTHON="${PYTHON:-python3}"
VENV="$HERE/build/min-deps-venv"
STAMP="$VENV/.jobwire-stamp"

# name==lowest for every [project] dependency; each must be "name>=X[,<Y]".
MINS=$("$PYTHON" - pyproject.toml <<'PYEOF'
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
block = re.search(r'^dependencies = \[(.*?)^\]', text, re.S | re.M)
if not block:
    sys.exit("min-deps: no dependencies list in pyproject.toml")
out = []
for spec in re.findall(r'"([^"]+)"', block.group(1)):
    m = re.fullmatch(r'([A-Za-z0-9_.-]+)>=([0-9][0-9.]*)(,<[0-9.]+)?', spec.replace(" ", ""))
    if not m:
        sys.exit(f"min-deps: {spec}: not name>=X[,<Y]")
    out.append(f"{m.group(1)}=={m.group(2)}")
print(" ".join(out))
PYEOF
)
# The test tools, pinned as in requirements-dev.txt. The engine-view tests generate the engine's
# admin stubs at run time with grpcio-tools: the release that matches the lowest grpcio.
GRPC_MIN=$(tr ' ' '\n' <<<"$MINS" | sed -n 's/^grpcio==//p')
TOOLS="$(grep -E '^(pytest|hypothesis|grimp|setuptools)[=<>]' requirements-dev.txt | tr '\n' ' ') grpcio-tools==$GRPC_MIN"
# The optional extra jobwire[pydantic] at its floor too (tests/test_typed.py uses it).
PYDANTIC_MIN=$(sed -n 's/^pydantic = \["pydantic>=\([0-9][0-9.]*\),<[0-9.]*"\]$/pydantic==\1/p' pyproject.toml)
[ -n "$PYDANTIC_MIN" ] || { echo "min-deps: no pydantic extra (pydantic>=X,<Y) in pyproject.toml" >&2; exit 1; }
TOOLS="$TOOLS $PYDANTIC_MIN"
# The optional extra jobwire[fastapi] at its floor (tests/test_fastapi.py), with the httpx its
# TestClient was written for (starlette 0.27 passes app= to httpx.Client; httpx 0.28 removed it).
STARLETTE_MIN=$(sed -n 's/^fastapi = \["starlette>=\([0-9][0-9.]*\),<[0-9.]*"\]$/starlette==\1/p' pyproject.toml)
[ -n "$STARLETTE_MIN" ] || { echo "min-deps: no fastapi extra (starlette>=X,<Y) in pyproject.toml" >&2; exit 1; }
TOOLS="$TOOLS $STARLETTE_MIN httpx==0.27.2"
echo "min-deps: $MINS"
# README.md "Compatibility" promises the same floors (rows "| `name` | X or newer ... |").
"$PYTHON" - README.md $MINS <<'PYEOF'
import re, sys
section = open(sys.argv[1], encoding="utf-8").read().split("## Compatibility", 1)[1].split("\n## ", 1)[0]
documented = dict(re.findall(r"^\| `([A-Za-z0-9_.-]+)` \| ([0-9][0-9.]*) or newer", section, re.M))
declared = dict(s.split("==") for s in sys.argv[2:])
if documented != declared:
    sys.exit(f"min-deps: pyproject.toml floors {declared} differ from README.md Compatibility {documented}")
PYEOF

WANT="$(printf '%s\n%s\n' "$MINS" "$TOOLS" | cat - pyproject.toml | sha256sum | cut -d' ' -f1)"
if [ "$(cat "$STAMP" 2>/dev/null)" != "$WANT" ]; then
  rm -rf "$VENV"
  "$PYTHON" -m venv "$VENV"
  # shellcheck disable=SC2086
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check --only-binary=:all: $MINS $TOOLS
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check --no-build-isolation --no-deps -e .
  "$VENV/bin/python" -m pip check
  echo "$WANT" > "$STAMP"
fi
# Nothing raised a floor (pip would have if a tool needed more).
"$VENV/bin/python" - $MINS <<'PYEOF'
import sys
from importlib import metadata
def key(v):  # 1.12 == 1.12.0
    parts = [int(p) for p in v.split(".")]
    while parts and parts[-1] == 0:
        parts.pop()
    return parts
bad = []
for spec in sys.argv[1:]:
    name, want = spec.split("==")
    got = metadata.version(name)
    if key(got) != key(want):
        bad.append(f"{name} is {got}, want {want}")
sys.exit("min-deps: " + "; ".join(bad) if bad else 0)
PYEOF

# Not run here, with the reason:
#  - test_pyzeebe_coexist.py: pyzeebe (a test-only dependency) needs a newer grpcio/protobuf than our floors;
#    the coexistence is tested by scripts/test.sh with the pinned versions.
#  - test_mypy_strict_is_clean: static typing, independent of the runtime versions (scripts/test.sh).
#  - test_fastapi_app_runs_...: FastAPI itself is no dependency of jobwire (the extra is starlette); the
#    Starlette tests of tests/test_fastapi.py run here at the starlette floor, the FastAPI one in scripts/test.sh.
#  - test_wheel_and_sdist_install_...: builds and installs the wheel with its ranges resolved to
#    the newest versions, i.e. the other end of the range (scripts/test.sh).
exec "$VENV/bin/python" -m pytest -q -p no:cacheprovider --junitxml="$RESULTS/sdk-python.min-deps.xml" \
  --ignore=tests/test_pyzeebe_coexist.py \
  --deselect=tests/test_package.py::test_mypy_strict_is_clean \
  --deselect=tests/test_package.py::test_wheel_and_sdist_install_into_a_fresh_venv_and_run_a_worker \
  --deselect=tests/test_fastapi.py::test_fastapi_app_runs_the_workers_and_reports_health \
  "$@"
