"""Where the suite lives, and the Python stubs of the gateway and admin
protos the runner generates for its own gRPC clients. A leaf: it imports no
other runner module.
"""
from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path


HERE = Path(__file__).resolve().parent
SUITE = HERE.parent
REPO = SUITE.parent
GEN = HERE / "_gen"


def ensure_stubs():
    """Generates Python stubs for gateway.proto and admin.proto into
    runner/_gen (ignored) when missing or older than the .proto files, then
    imports them. Returns (gateway_pb2, gateway_pb2_grpc, admin_pb2, admin_pb2_grpc)."""
    sources = {"gateway.proto": REPO / "proto" / "gateway.proto",
               "admin.proto": REPO / "proto" / "jobwire" / "admin" / "v1" / "admin.proto"}
    pkg = GEN / "jwconf"
    stamp = GEN / "stamp"
    want = ";".join(f"{n}:{p.stat().st_mtime_ns}" for n, p in sources.items())
    if not stamp.exists() or stamp.read_text() != want:
        from grpc_tools import protoc  # imported lazily: heavy
        tmp = Path(tempfile.mkdtemp(prefix="jwgen-"))
        try:
            (tmp / "jwconf").mkdir()
            for n, p in sources.items():
                shutil.copy(p, tmp / "jwconf" / n)
            pkg.mkdir(parents=True, exist_ok=True)
            args = ["protoc", f"-I{tmp}", f"--python_out={GEN}", f"--grpc_python_out={GEN}"]
            args += [str(tmp / "jwconf" / n) for n in sources]
            if protoc.main(args) != 0:
                raise RuntimeError("grpc_tools.protoc failed")
            (pkg / "__init__.py").write_text("")
            (GEN / ".gitignore").write_text("*\n")
            stamp.write_text(want)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    if str(GEN) not in sys.path:
        sys.path.insert(0, str(GEN))
    from jwconf import gateway_pb2, gateway_pb2_grpc, admin_pb2, admin_pb2_grpc  # noqa: E402
    return gateway_pb2, gateway_pb2_grpc, admin_pb2, admin_pb2_grpc
