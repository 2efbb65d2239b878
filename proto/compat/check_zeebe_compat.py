#!/usr/bin/env python3
"""Checks that proto/gateway.proto is wire-compatible with Zeebe's own.

Both files are compiled to descriptors with protoc (from grpcio-tools) and
compared element by element. Everything *we* declare must exist in Zeebe's
file with the same shape: package, service, each RPC's request/response types
and streaming flags, each message (nested ones too), each field's name, number,
type, type name, label, proto3 `optional`, and oneof membership, each enum
value's number. We may declare less than Zeebe (fewer RPCs), never something
different; but a message we declare must carry every one of Zeebe's fields.

Usage:
  check_zeebe_compat.py [--ours proto/gateway.proto] [--theirs PATH]

Without --theirs, Zeebe's gateway.proto is extracted from the Maven Central
artifact io.camunda:zeebe-gateway-protocol:8.8.0, fetched with Maven itself.
Exit code 0 when compatible, 1 with one line per difference otherwise.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from google.protobuf import descriptor_pb2

ZEEBE_ARTIFACT = "io.camunda:zeebe-gateway-protocol:8.8.0"
REPO_ROOT = Path(__file__).resolve().parents[2]
CACHE_DIR = REPO_ROOT / ".tools" / "zeebe-proto"


def fetch_zeebe_proto() -> Path:
    """Returns the path of Zeebe's gateway.proto, downloading it once."""
    target = CACHE_DIR / "8.8.0" / "gateway.proto"
    if target.exists():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            ["mvn", "-q", "-B", "dependency:copy", f"-Dartifact={ZEEBE_ARTIFACT}",
             f"-DoutputDirectory={tmp}"],
            check=True,
        )
        jars = list(Path(tmp).glob("*.jar"))
        if not jars:
            raise SystemExit(f"maven did not deliver {ZEEBE_ARTIFACT}")
        with zipfile.ZipFile(jars[0]) as jar:
            with jar.open("gateway.proto") as src, open(target, "wb") as dst:
                shutil.copyfileobj(src, dst)
    return target


def compile_descriptor(proto: Path) -> descriptor_pb2.FileDescriptorProto:
    from grpc_tools import protoc  # imported late: only needed here

    with tempfile.TemporaryDirectory() as tmp:
        # Copy to a neutral name so both files compile the same way.
        src = Path(tmp) / "gateway.proto"
        shutil.copyfile(proto, src)
        out = Path(tmp) / "out.pb"
        rc = protoc.main(["protoc", f"-I{tmp}", f"--descriptor_set_out={out}", str(src)])
        if rc != 0:
            raise SystemExit(f"protoc failed on {proto}")
        fds = descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes())
        return fds.file[0]


def _field_sig(msg: descriptor_pb2.DescriptorProto, f: descriptor_pb2.FieldDescriptorProto) -> dict:
    oneof = None
    if f.HasField("oneof_index") and not f.proto3_optional:
        oneof = msg.oneof_decl[f.oneof_index].name
    return {
        "number": f.number,
        "type": descriptor_pb2.FieldDescriptorProto.Type.Name(f.type),
        "type_name": f.type_name,
        "label": descriptor_pb2.FieldDescriptorProto.Label.Name(f.label),
        "proto3_optional": f.proto3_optional,
        "oneof": oneof,
    }


def _compare_enum(path: str, ours: descriptor_pb2.EnumDescriptorProto,
                  theirs: descriptor_pb2.EnumDescriptorProto, out: list[str]) -> None:
    their_vals = {v.name: v.number for v in theirs.value}
    for v in ours.value:
        if v.name not in their_vals:
            out.append(f"enum {path}: value {v.name} not in Zeebe's enum")
        elif their_vals[v.name] != v.number:
            out.append(f"enum {path}: value {v.name} = {v.number}, Zeebe has {their_vals[v.name]}")


def _compare_message(path: str, ours: descriptor_pb2.DescriptorProto,
                     theirs: descriptor_pb2.DescriptorProto, out: list[str]) -> None:
    their_fields = {f.name: f for f in theirs.field}
    their_by_number = {f.number: f.name for f in theirs.field}
    for f in ours.field:
        if f.name not in their_fields:
            hint = f" (Zeebe uses number {f.number} for '{their_by_number[f.number]}')" \
                if f.number in their_by_number else ""
            out.append(f"message {path}: field '{f.name}' not in Zeebe's message{hint}")
            continue
        a, b = _field_sig(ours, f), _field_sig(theirs, their_fields[f.name])
        for key in a:
            if a[key] != b[key]:
                out.append(f"message {path}: field '{f.name}' {key} is {a[key]!r}, Zeebe has {b[key]!r}")
    our_names = {f.name for f in ours.field}
    for f in theirs.field:
        if f.name not in our_names:
            out.append(f"message {path}: Zeebe's field '{f.name}' = {f.number} is missing "
                       "(declared messages must carry every field)")
    their_nested = {m.name: m for m in theirs.nested_type}
    for m in ours.nested_type:
        if m.options.map_entry:
            continue
        if m.name not in their_nested:
            out.append(f"message {path}.{m.name}: not in Zeebe's protocol")
        else:
            _compare_message(f"{path}.{m.name}", m, their_nested[m.name], out)
    their_enums = {e.name: e for e in theirs.enum_type}
    for e in ours.enum_type:
        if e.name not in their_enums:
            out.append(f"enum {path}.{e.name}: not in Zeebe's protocol")
        else:
            _compare_enum(f"{path}.{e.name}", e, their_enums[e.name], out)


def compare(ours: descriptor_pb2.FileDescriptorProto,
            theirs: descriptor_pb2.FileDescriptorProto) -> list[str]:
    """Returns one human-readable line per incompatibility."""
    out: list[str] = []
    if ours.package != theirs.package:
        out.append(f"package is {ours.package!r}, Zeebe has {theirs.package!r}")
    their_services = {s.name: s for s in theirs.service}
    for svc in ours.service:
        if svc.name not in their_services:
            out.append(f"service {svc.name}: not in Zeebe's protocol")
            continue
        their_methods = {m.name: m for m in their_services[svc.name].method}
        for m in svc.method:
            t = their_methods.get(m.name)
            if t is None:
                out.append(f"rpc {svc.name}.{m.name}: not in Zeebe's protocol")
                continue
            for key in ("input_type", "output_type", "client_streaming", "server_streaming"):
                if getattr(m, key) != getattr(t, key):
                    out.append(f"rpc {svc.name}.{m.name}: {key} is {getattr(m, key)!r}, "
                               f"Zeebe has {getattr(t, key)!r}")
    their_msgs = {m.name: m for m in theirs.message_type}
    for m in ours.message_type:
        if m.name not in their_msgs:
            out.append(f"message {m.name}: not in Zeebe's protocol")
        else:
            _compare_message(m.name, m, their_msgs[m.name], out)
    their_enums = {e.name: e for e in theirs.enum_type}
    for e in ours.enum_type:
        if e.name not in their_enums:
            out.append(f"enum {e.name}: not in Zeebe's protocol")
        else:
            _compare_enum(e.name, e, their_enums[e.name], out)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ours", type=Path, default=REPO_ROOT / "proto" / "gateway.proto")
    ap.add_argument("--theirs", type=Path, default=None)
    args = ap.parse_args(argv)
    theirs_path = args.theirs or fetch_zeebe_proto()
    ours, theirs = compile_descriptor(args.ours), compile_descriptor(theirs_path)
    problems = compare(ours, theirs)
    for p in problems:
        print(f"INCOMPATIBLE: {p}")
    n_rpcs = sum(len(s.method) for s in ours.service)
    if problems:
        print(f"{len(problems)} incompatibilities with Zeebe 8.8 gateway.proto")
        return 1
    print(f"compatible with Zeebe 8.8: {n_rpcs} RPCs, {len(ours.message_type)} messages checked")
    return 0


if __name__ == "__main__":
    sys.exit(main())
