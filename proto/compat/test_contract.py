"""Tests of the contract: Zeebe compatibility (against the gateway.proto of
the Apache-2.0 io.camunda:zeebe-gateway-protocol-impl jar), buf hygiene,
generated code."""
import shutil
import subprocess
from pathlib import Path

import pytest

import check_zeebe_compat as compat

ROOT = Path(__file__).resolve().parents[2]
OURS = ROOT / "proto" / "gateway.proto"
BUF = str(ROOT / "tools" / "node_modules" / ".bin" / "buf")


@pytest.fixture(scope="session")
def zeebe_proto() -> Path:
    return compat.fetch_zeebe_proto()


def test_reference_is_the_apache_licensed_artifact(zeebe_proto):
    """The reference proto comes from zeebe-gateway-protocol-impl, whose
    cached POM declares Apache-2.0; no other coordinate is ever fetched."""
    assert compat.ZEEBE_ARTIFACT_ID == "zeebe-gateway-protocol-impl"
    pom = zeebe_proto.parent / f"{compat.ZEEBE_ARTIFACT_ID}-{compat.ZEEBE_VERSION}.pom"
    assert compat.pom_licences(pom.read_bytes()) == [("Apache License, Version 2.0",
                                                      "http://www.apache.org/licenses/LICENSE-2.0")]
    for other in (f"io.camunda:some-other-artifact:{compat.ZEEBE_VERSION}",
                  f"{compat.ZEEBE_GROUP}:{compat.ZEEBE_ARTIFACT_ID}:0.0.1"):
        with pytest.raises(compat.LicenceError, match="only .* is ever fetched"):
            compat._mvn_copy(other, ROOT / "does-not-matter")


_POM = """<?xml version="1.0"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion><groupId>io.camunda</groupId><artifactId>x</artifactId><version>1</version>
  {licenses}
</project>"""
_LIC = "<license><name>{}</name><url>{}</url></license>"


@pytest.mark.parametrize("licenses,expect", [
    ("<licenses>" + _LIC.format("Camunda License 1.0", "https://camunda.com/legal/terms/camunda-platform/camunda-platform-8-self-managed/") + "</licenses>", "Camunda License 1.0"),
    ("<licenses>" + _LIC.format("Zeebe Community License Version 1.1", "https://zeebe.io/legal/zeebe-community-license-1.1") + "</licenses>", "Zeebe Community"),
    ("<licenses>" + _LIC.format("Apache License, Version 2.0", "https://camunda.com/legal/") + "</licenses>", "not Apache-2.0"),
    ("<licenses>" + _LIC.format("Apache License, Version 2.0", "http://www.apache.org/licenses/LICENSE-2.0")
     + _LIC.format("Camunda License 1.0", "") + "</licenses>", "2 licences"),
    ("", "0 licences"),
])
def test_refuses_a_pom_without_apache_2(licenses, expect):
    with pytest.raises(compat.LicenceError, match=expect):
        compat.require_apache(_POM.format(licenses=licenses).encode(), "io.camunda:x:1")


def test_accepts_apache_2_pom():
    for name, url in [("Apache License, Version 2.0", "http://www.apache.org/licenses/LICENSE-2.0"),
                      ("The Apache Software License, Version 2.0", "https://www.apache.org/licenses/LICENSE-2.0.txt"),
                      ("Apache-2.0", "")]:
        compat.require_apache(_POM.format(licenses="<licenses>" + _LIC.format(name, url) + "</licenses>").encode(), "x")


def test_cached_pom_with_another_licence_is_refused(tmp_path, zeebe_proto):
    """The licence is checked on every use, cached copy included."""
    cache = tmp_path / "cache"
    shutil.copytree(zeebe_proto.parent, cache / zeebe_proto.parent.name)
    assert compat.fetch_zeebe_proto(cache) == cache / zeebe_proto.parent.name / "gateway.proto"
    pom = cache / zeebe_proto.parent.name / f"{compat.ZEEBE_ARTIFACT_ID}-{compat.ZEEBE_VERSION}.pom"
    pom.write_text(pom.read_text().replace("Apache License, Version 2.0", "Camunda License 1.0"))
    with pytest.raises(compat.LicenceError, match="Camunda License 1.0"):
        compat.fetch_zeebe_proto(cache)


def test_gateway_proto_matches_zeebe(zeebe_proto):
    problems = compat.compare(compat.compile_descriptor(OURS), compat.compile_descriptor(zeebe_proto))
    assert problems == []


def test_declares_required_rpcs():
    d = compat.compile_descriptor(OURS)
    rpcs = {m.name for m in d.service[0].method}
    required = {"ActivateJobs", "StreamActivatedJobs", "CompleteJob", "FailJob", "ThrowError",
                "UpdateJobRetries", "UpdateJobTimeout", "CreateProcessInstance",
                "CreateProcessInstanceWithResult", "DeployResource", "CancelProcessInstance",
                "SetVariables", "PublishMessage", "ResolveIncident", "Topology",
                "EvaluateDecision", "ModifyProcessInstance", "MigrateProcessInstance",
                "DeleteResource", "BroadcastSignal"}
    assert required <= rpcs
    assert d.package == "gateway_protocol" and d.service[0].name == "Gateway"


def _mutate(tmp_path, old, new):
    text = OURS.read_text()
    assert old in text, old
    scratch = tmp_path / "gateway.proto"
    scratch.write_text(text.replace(old, new, 1))
    return scratch


@pytest.mark.parametrize("old,new,expect", [
    ("int32 retries = 11;", "int32 retries = 19;", "field 'retries' number is 19"),
    ("int64 jobKey = 1;\n  int32 retries = 2;", "int64 jobKey = 1;\n  int64 retries = 2;", "field 'retries' type is 'TYPE_INT64'"),
    ("string errorCode = 2;", "string error_code = 2;", "field 'error_code' not in Zeebe's message"),
    ("repeated string tags = 18;", "string tags = 18;", "label is 'LABEL_OPTIONAL'"),
    ("optional UserTaskProperties userTask = 15;", "UserTaskProperties userTask = 15;", "proto3_optional is False"),
    ("returns (stream ActivatedJob)", "returns (ActivatedJob)", "server_streaming is False"),
    ("package gateway_protocol;", "package gateway_protocol.v1;", "package is 'gateway_protocol.v1'"),
    ("  string tenantId = 14;\n", "", "field 'tenantId' = 14 is missing"),
    ("    TASK_LISTENER = 2;", "    TASK_LISTENER = 4;", "value TASK_LISTENER = 4"),
    ("    int64 ancestorElementInstanceKey = 2;", "    string ancestorElementInstanceKey = 2;", "ancestorElementInstanceKey' type is 'TYPE_STRING'"),
    ("  string signalName = 1;", "  string signal_name = 1;", "field 'signal_name' not in Zeebe's message"),
    ("rpc DeleteResource(DeleteResourceRequest)", "rpc DeleteResource(stream DeleteResourceRequest)", "client_streaming is True"),
])
def test_checker_catches_a_wrong_declaration(tmp_path, zeebe_proto, old, new, expect):
    """The checker itself: a deliberately wrong scratch copy must fail."""
    scratch = _mutate(tmp_path, old, new)
    problems = compat.compare(compat.compile_descriptor(scratch), compat.compile_descriptor(zeebe_proto))
    assert any(expect in p for p in problems), problems
    # and the command-line entry point exits non-zero on it
    assert compat.main(["--ours", str(scratch), "--theirs", str(zeebe_proto)]) == 1


def test_buf_lint_and_format_clean():
    subprocess.run([BUF, "lint"], cwd=ROOT, check=True)
    subprocess.run([BUF, "format", "--diff", "--exit-code"], cwd=ROOT, check=True)


def test_buf_breaking_against_main():
    """No wire-breaking change against the main branch (when this is a git checkout with main)."""
    has_main = subprocess.run(["git", "rev-parse", "--verify", "-q", "main"], cwd=ROOT,
                              capture_output=True).returncode == 0
    if not has_main:
        pytest.fail("no 'main' branch in this checkout to compare against")
    subprocess.run([BUF, "breaking", "--against", ".git#branch=main"], cwd=ROOT, check=True)


def test_generated_code_is_fresh():
    """`make generate` on a clean tree changes nothing (CI fails on stale code)."""
    gen_paths = ["proto", "sdk-go/internal/pb", "engine-reference/internal/pb",
                 "sdk-python/src/jobwire/_proto", "sdk-node/src/generated", "sdk-node/proto"]
    before = subprocess.run(["git", "status", "--porcelain", "--", *gen_paths], cwd=ROOT,
                            capture_output=True, text=True, check=True).stdout
    subprocess.run([str(ROOT / "tools" / "generate.sh")], cwd=ROOT, check=True, capture_output=True)
    after = subprocess.run(["git", "status", "--porcelain", "--", *gen_paths], cwd=ROOT,
                           capture_output=True, text=True, check=True).stdout
    diff = subprocess.run(["git", "diff", "--stat", "--", *gen_paths], cwd=ROOT,
                          capture_output=True, text=True).stdout
    assert before == after, f"generated code is stale; run `make generate`:\n{diff}\n{after}"


def test_declares_every_zeebe_rpc_but_deploy_process(zeebe_proto):
    """Every RPC of Zeebe 8.8's Gateway is declared, with Zeebe's request and
    response types and streaming flags (checked by compare()), except the
    deprecated DeployProcess, left out on purpose (DeployResource replaces it)."""
    ours = {m.name for m in compat.compile_descriptor(OURS).service[0].method}
    theirs = {m.name for m in compat.compile_descriptor(zeebe_proto).service[0].method}
    assert len(theirs) == 21
    assert theirs - ours == {"DeployProcess"}
    assert ours <= theirs
