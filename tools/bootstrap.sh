#!/usr/bin/env bash
# Installs the project's pinned developer tools into .tools/ (ignored by git):
#   .tools/venv      Python: grpcio-tools, pytest, pip-licenses, ...
#   .tools/pygen     Python: the old grpcio-tools that generates sdk-python's stubs
#   .tools/bin       Go protoc plugins (protoc-gen-go, protoc-gen-go-grpc), go-licenses
#   tools/node_modules/.bin/buf   buf, license-checker-rseidelsohn, from the npm registry
# Idempotent and quick when everything is present. Needs only the toolchains.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
mkdir -p .tools/bin

stamp() { echo "$1" > ".tools/$2.stamp"; }
fresh() { [ -f ".tools/$2.stamp" ] && [ "$(cat ".tools/$2.stamp")" = "$1" ]; }

PY_REQ_HASH=$(sha256sum tools/requirements.txt | cut -c1-16)
if ! fresh "$PY_REQ_HASH" venv; then
  echo "bootstrap: python venv (.tools/venv)"
  python3 -m venv .tools/venv
  .tools/venv/bin/pip install -q --disable-pip-version-check -r tools/requirements.txt
  stamp "$PY_REQ_HASH" venv
fi

PYGEN_REQ_HASH=$(sha256sum tools/requirements-pygen.txt | cut -c1-16)
if ! fresh "$PYGEN_REQ_HASH" pygen; then
  echo "bootstrap: python stub generator (.tools/pygen)"
  python3 -m venv .tools/pygen
  .tools/pygen/bin/pip install -q --disable-pip-version-check --only-binary=:all: -r tools/requirements-pygen.txt
  stamp "$PYGEN_REQ_HASH" pygen
fi

GO_PLUGINS="google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.10 google.golang.org/grpc/cmd/protoc-gen-go-grpc@v1.5.1 github.com/google/go-licenses@v1.6.0"
if ! fresh "$GO_PLUGINS" goplugins; then
  echo "bootstrap: go protoc plugins (.tools/bin)"
  for p in $GO_PLUGINS; do GOBIN="$ROOT/.tools/bin" go install "$p"; done
  stamp "$GO_PLUGINS" goplugins
fi

NODE_HASH=$(sha256sum tools/package-lock.json | cut -c1-16)
if ! fresh "$NODE_HASH" buf || [ ! -x tools/node_modules/.bin/buf ]; then
  echo "bootstrap: buf (tools/node_modules)"
  (cd tools && npm ci --no-audit --no-fund --loglevel=error)
  stamp "$NODE_HASH" buf
fi
