#!/usr/bin/env bash
# Regenerates every artefact derived from proto/ (the one command behind
# `make generate`). CI runs it and fails when the tree changes (stale code).
#   Go      sdk-go/internal/pb, engine-reference/internal/pb   (buf + pinned plugins)
#   Python  sdk-python/src/jobwire/_proto                       (grpcio-tools 1.49.1, .tools/pygen)
#   (the SDKs carry gateway.proto and jobwire/stream/v1/stream.proto, StreamControlService;
#   sdk-python also carries jobwire/admin/v1/admin.proto for its test kit, jobwire.testing)
#   Node    sdk-node/src/generated (proto-loader-gen-types typings; the .proto
#           itself is loaded at run time and copied into the package)
#   Java    sdk-java/src/main/proto (the contract, copied: Maven generates the
#           classes from it at build time, so sdk-java builds from its own folder);
#           sdk-java-test/src/main/proto (the engine's admin API, for the test kit)
#   Vectors proto/testdata/*.hex                                (golden encodings)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
tools/bootstrap.sh >/dev/null

tools/node_modules/.bin/buf format -w
tools/node_modules/.bin/buf generate

# Python: compile from a temp tree where the file sits at its import path, so
# the generated modules import each other as jobwire._proto.* .
PYOUT=sdk-python/src/jobwire/_proto
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
mkdir -p "$TMP/jobwire/_proto" "$PYOUT"
cp proto/gateway.proto "$TMP/jobwire/_proto/gateway.proto"
cp proto/jobwire/stream/v1/stream.proto "$TMP/jobwire/_proto/stream.proto"
cp proto/jobwire/admin/v1/admin.proto "$TMP/jobwire/_proto/admin.proto"
rm -f "$PYOUT"/gateway_pb2*.py* "$PYOUT"/stream_pb2*.py* "$PYOUT"/admin_pb2*.py* "$PYOUT"/_pool.py
.tools/pygen/bin/python -W "ignore:pkg_resources is deprecated:UserWarning" -m grpc_tools.protoc -I"$TMP" --python_out=sdk-python/src --pyi_out=sdk-python/src \
  --grpc_python_out=sdk-python/src "$TMP/jobwire/_proto/gateway.proto" "$TMP/jobwire/_proto/stream.proto" "$TMP/jobwire/_proto/admin.proto"
# Own descriptor pool: the modules register their files in jobwire._proto._pool.POOL, not in
# protobuf's default pool, so another client that registers gateway_protocol.* (pyzeebe) can
# share the interpreter. Only the registration moves; names, encodings and the gRPC method
# paths (/gateway_protocol.Gateway/...) stay exactly as generated.
cat > "$PYOUT/_pool.py" <<'PYEOF'
"""jobwire's own protobuf descriptor pool (written by tools/generate.sh; do not edit).

The generated modules register gateway.proto, stream.proto and admin.proto here instead of in protobuf's
default pool, so jobwire can share an interpreter with another client that registers the same
gateway_protocol messages. Wire names and encodings are unchanged.
"""
from google.protobuf import descriptor_pool

POOL = descriptor_pool.DescriptorPool()
PYEOF
.tools/venv/bin/python - "$PYOUT/gateway_pb2.py" "$PYOUT/stream_pb2.py" "$PYOUT/admin_pb2.py" <<'PYEOF'
import sys
IMPORT = "from google.protobuf import descriptor_pool as _descriptor_pool\n"
ADD = "DESCRIPTOR = _descriptor_pool.Default().AddSerializedFile("
OWN = (
    "try:  # imported as jobwire._proto.<name>_pb2\n"
    "    from . import _pool as _jobwire_pool\n"
    "except ImportError:  # imported flat from this folder (proto/testdata/make_vectors.py)\n"
    "    import _pool as _jobwire_pool  # type: ignore[no-redef]\n"
)
for path in sys.argv[1:]:
    text = open(path, encoding="utf-8").read()
    if text.count(IMPORT) != 1 or text.count(ADD) != 1:
        sys.exit(f"generate: {path}: no default-pool registration to rewrite (protoc output changed?)")
    text = text.replace(IMPORT, OWN).replace(ADD, "DESCRIPTOR = _jobwire_pool.POOL.AddSerializedFile(")
    if "_descriptor_pool" in text:
        sys.exit(f"generate: {path} still uses the default pool")
    open(path, "w", encoding="utf-8").write(text)
PYEOF
[ -f "$PYOUT/__init__.py" ] || echo '"""Generated gRPC stubs for gateway.proto (do not edit; run make generate)."""' > "$PYOUT/__init__.py"

# Node: typings for the runtime-loaded proto (only once sdk-node's deps exist).
if [ -f sdk-node/package.json ]; then
  (cd sdk-node && [ -d node_modules ] || npm ci --no-audit --no-fund --loglevel=error)
  mkdir -p sdk-node/proto && cp proto/gateway.proto sdk-node/proto/gateway.proto
  cp proto/jobwire/stream/v1/stream.proto sdk-node/proto/stream.proto
  # the engine's admin API, for the test kit (@jobwire/sdk/testing)
  cp proto/jobwire/admin/v1/admin.proto sdk-node/proto/admin.proto
  rm -rf sdk-node/src/generated
  (cd sdk-node && npx --no-install proto-loader-gen-types --longs=String --enums=String --defaults --oneofs \
     --grpcLib=@grpc/grpc-js --outDir=src/generated proto/gateway.proto proto/stream.proto proto/admin.proto >/dev/null)
fi

# Java: the contract inside the package (Maven generates from it at build time).
mkdir -p sdk-java/src/main/proto/jobwire/stream/v1
cp proto/gateway.proto sdk-java/src/main/proto/gateway.proto
cp proto/jobwire/stream/v1/stream.proto sdk-java/src/main/proto/jobwire/stream/v1/stream.proto
mkdir -p sdk-java-test/src/main/proto/jobwire/admin/v1
cp proto/jobwire/admin/v1/admin.proto sdk-java-test/src/main/proto/jobwire/admin/v1/admin.proto

.tools/venv/bin/python proto/testdata/make_vectors.py
echo "generate: done"
