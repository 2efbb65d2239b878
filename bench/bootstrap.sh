#!/usr/bin/env bash
# Creates bench/.venv (pinned requirements.txt + the jobwire Python SDK from ../sdk-python) when
# missing or stale. Quick when up to date. Output goes to stderr.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
SDK="$(cd "$HERE/../sdk-python" && pwd)"
VENV="$HERE/.venv"
exec 7>"$HERE/.bootstrap.lock"
flock 7
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
WANT="$(cd "$SDK" && cat "$HERE/requirements.txt" pyproject.toml $(find src -type f -name '*.py' | LC_ALL=C sort) | sha256sum | cut -d' ' -f1)"
if [ "$(cat "$VENV/.stamp" 2>/dev/null)" != "$WANT" ]; then
  echo "bench: installing the Python environment (bench/.venv)" >&2
  "$VENV/bin/pip" install -q --disable-pip-version-check -r "$HERE/requirements.txt" >&2
  "$VENV/bin/pip" install -q --disable-pip-version-check --no-build-isolation --no-deps --force-reinstall "$SDK" >&2
  rm -rf "$SDK/build"
  echo "$WANT" > "$VENV/.stamp"
fi
