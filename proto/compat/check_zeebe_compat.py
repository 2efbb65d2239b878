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

Without --theirs, Zeebe's gateway.proto is the one shipped at the root of the
Maven Central jar io.camunda:zeebe-gateway-protocol-impl:8.8.21, whose POM
declares the Apache License 2.0. It is fetched with Maven (POM first: the
script refuses the artifact unless its POM declares Apache-2.0, and only then
fetches the jar), checked against pinned SHA-256 sums and cached under
.tools/zeebe-proto/. No other artifact is ever fetched: the script refuses
any coordinate but that one.
Exit code 0 when compatible, 1 with one line per difference otherwise.
"""
from __future__ import annotations

import argparse
import hashlib
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

from google.protobuf import descriptor_pb2

# The Apache-2.0 artifact that ships gateway.proto. Pinned: a new version
# needs its sums below (and a look at its POM's licence).
ZEEBE_GROUP = "io.camunda"
ZEEBE_ARTIFACT_ID = "zeebe-gateway-protocol-impl"
ZEEBE_VERSION = "8.8.21"
ZEEBE_ARTIFACT = f"{ZEEBE_GROUP}:{ZEEBE_ARTIFACT_ID}:{ZEEBE_VERSION}"
POM_SHA256 = "c9d093a76236d712f2687e2ddcd2e269c5fc57c1b230b98c8c1884eabeff47d6"
JAR_SHA256 = "ed2d58828fa9e200b0272d4d18a3f90804480677d376c756ce4bb8ec3710e733"
PROTO_SHA256 = "4db851d26eee622f4ac6d1014b558bd07aefff91158dd3e98c8d48ce9f099b5d"
# Under the Camunda License 1.0: never downloaded, whatever the version.

REPO_ROOT = Path(__file__).resolve().parents[2]
CACHE_DIR = REPO_ROOT / ".tools" / "zeebe-proto"
# Where earlier versions of this script cached the proto taken from the
# Camunda-License jar: removed on sight.
LEGACY_CACHE = CACHE_DIR / "8.8.0"

_APACHE_NAME = re.compile(r"^(the )?apache( software)? license,? (version )?2\.0$|^apache-2\.0$", re.I)
_APACHE_URL = re.compile(r"^https?://(www\.)?apache\.org/licenses/LICENSE-2\.0(\.txt|\.html)?$")


class LicenceError(SystemExit):
    """The artifact's POM does not declare the Apache License 2.0."""


def pom_licences(pom: bytes) -> list[tuple[str, str]]:
    """(name, url) of every <licenses><license> of a POM."""
    root = ET.fromstring(pom)
    ns = {"m": "http://maven.apache.org/POM/4.0.0"}
    out = []
    for lic in root.findall("m:licenses/m:license", ns) + root.findall("licenses/license"):
        name = (lic.findtext("m:name", "", ns) or lic.findtext("name", "")).strip()
        url = (lic.findtext("m:url", "", ns) or lic.findtext("url", "")).strip()
        out.append((name, url))
    return out


def require_apache(pom: bytes, what: str) -> None:
    """Refuses (LicenceError) unless the POM declares exactly one licence,
    the Apache License 2.0: its name says so, and its URL, if any, is
    apache.org's."""
    lics = pom_licences(pom)
    if len(lics) != 1:
        raise LicenceError(f"{what}: its POM declares {len(lics)} licences {lics}, expected exactly Apache-2.0; refused")
    name, url = lics[0]
    if not _APACHE_NAME.match(name) or (url and not _APACHE_URL.match(url)):
        raise LicenceError(f"{what}: its POM declares the licence {name!r} ({url}), not Apache-2.0; refused")


def _sha256(b: bytes) -> str:
    return hashlib.sha256(b).hexdigest()


def _check_sum(b: bytes, want: str, what: str) -> None:
    got = _sha256(b)
    if got != want:
        raise SystemExit(f"{what}: sha256 {got}, pinned {want}")


def _mvn_copy(coords: str, out: Path) -> Path:
    """One artifact (no dependencies) into out, with Maven."""
    artifact_id = coords.split(":")[1]
    if coords.split(":")[:3] != [ZEEBE_GROUP, ZEEBE_ARTIFACT_ID, ZEEBE_VERSION]:
        raise LicenceError(f"{coords}: only {ZEEBE_GROUP}:{ZEEBE_ARTIFACT_ID}:{ZEEBE_VERSION} (Apache-2.0) is ever fetched")
    r = subprocess.run(["mvn", "-q", "-B", "-Dstyle.color=never", "dependency:copy", f"-Dartifact={coords}",
                        "-Dtransitive=false", f"-DoutputDirectory={out}"], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"maven could not fetch {coords} (exit {r.returncode}):\n{r.stdout}{r.stderr}")
    ext = coords.split(":")[3] if coords.count(":") >= 3 else "jar"
    found = sorted(out.glob(f"{artifact_id}-*.{ext}"))
    if not found:
        raise SystemExit(f"maven did not deliver {coords}")
    return found[0]


def fetch_zeebe_proto(cache_dir: Path = CACHE_DIR) -> Path:
    """Returns the path of Zeebe's gateway.proto from the Apache-2.0
    zeebe-gateway-protocol-impl jar, downloading it once. The cached POM's
    licence and the cached files' sums are checked on every call."""
    if cache_dir == CACHE_DIR and LEGACY_CACHE.exists():
        shutil.rmtree(LEGACY_CACHE)
    target_dir = cache_dir / f"{ZEEBE_ARTIFACT_ID}-{ZEEBE_VERSION}"
    proto, pom = target_dir / "gateway.proto", target_dir / f"{ZEEBE_ARTIFACT_ID}-{ZEEBE_VERSION}.pom"
    if proto.exists() and pom.exists():
        require_apache(pom.read_bytes(), ZEEBE_ARTIFACT)
        _check_sum(pom.read_bytes(), POM_SHA256, str(pom))
        _check_sum(proto.read_bytes(), PROTO_SHA256, str(proto))
        return proto
    with tempfile.TemporaryDirectory() as tmp:
        # The POM first: the jar is fetched only when it declares Apache-2.0.
        pom_bytes = _mvn_copy(f"{ZEEBE_ARTIFACT}:pom", Path(tmp)).read_bytes()
        require_apache(pom_bytes, ZEEBE_ARTIFACT)
        _check_sum(pom_bytes, POM_SHA256, f"{ZEEBE_ARTIFACT} POM")
        jar_bytes = _mvn_copy(ZEEBE_ARTIFACT, Path(tmp)).read_bytes()
        _check_sum(jar_bytes, JAR_SHA256, f"{ZEEBE_ARTIFACT} jar")
        with zipfile.ZipFile(Path(tmp) / f"{ZEEBE_ARTIFACT_ID}-{ZEEBE_VERSION}.jar") as jar:
            inner_pom = jar.read(f"META-INF/maven/{ZEEBE_GROUP}/{ZEEBE_ARTIFACT_ID}/pom.xml")
            require_apache(inner_pom, f"{ZEEBE_ARTIFACT} (POM inside the jar)")
            proto_bytes = jar.read("gateway.proto")
        _check_sum(proto_bytes, PROTO_SHA256, f"gateway.proto of {ZEEBE_ARTIFACT}")
    target_dir.mkdir(parents=True, exist_ok=True)
    pom.write_bytes(pom_bytes)
    proto.write_bytes(proto_bytes)
    return proto


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
        print(f"{len(problems)} incompatibilities with the gateway.proto of {ZEEBE_ARTIFACT}")
        return 1
    print(f"compatible with the gateway.proto of {ZEEBE_ARTIFACT}: {n_rpcs} RPCs, {len(ours.message_type)} messages checked")
    return 0


if __name__ == "__main__":
    sys.exit(main())
