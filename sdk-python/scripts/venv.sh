# Sourced by scripts/test.sh and scripts/docs.sh: the pinned venv in sdk-python/.venv
# (requirements-dev.txt + an editable install of jobwire), rebuilt when requirements-dev.txt or
# pyproject.toml changed. Sets VENV. Expects HERE (sdk-python/).
PYTHON="${PYTHON:-python3}"
VENV="$HERE/.venv"
STAMP="$VENV/.jobwire-stamp"
WANT="$(cat "$HERE/requirements-dev.txt" "$HERE/pyproject.toml" | sha256sum | cut -d' ' -f1)"

if [ ! -x "$VENV/bin/python" ]; then
  "$PYTHON" -m venv "$VENV"
fi
if [ "$(cat "$STAMP" 2>/dev/null)" != "$WANT" ]; then
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check -r "$HERE/requirements-dev.txt"
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check --no-build-isolation --no-deps -e "$HERE"
  "$VENV/bin/python" -m pip check
  echo "$WANT" > "$STAMP"
fi
