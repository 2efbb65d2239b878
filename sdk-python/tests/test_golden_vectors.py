"""Cross-language golden vectors (proto/testdata): decode, check fields, re-encode.

Every SDK decodes the same hex-encoded messages with its own generated code; the
field values must match vectors.json and re-encoding must give the same bytes.
"""
import json
from pathlib import Path

import pytest
from google.protobuf import json_format
from google.protobuf.message import DecodeError

try:
    from google.protobuf.unknown_fields import UnknownFieldSet
except ImportError:  # protobuf < 4.24 (scripts/min-deps.sh): the message's own accessor
    def UnknownFieldSet(msg):
        return msg.UnknownFields()

from jobwire._proto import gateway_pb2 as pb

TESTDATA = Path(__file__).resolve().parents[2] / "proto" / "testdata"
VECTORS = json.loads((TESTDATA / "vectors.json").read_text(encoding="utf-8"))
KEY_2_60 = 2**60 + 7


def load(name):
    """(message class, encoded bytes, expected fields) of one vector."""
    vector = VECTORS[name]
    package, _, message = vector["message"].partition(".")
    assert package == "gateway_protocol"
    cls = getattr(pb, message)
    assert cls.DESCRIPTOR.full_name == vector["message"]
    data = bytes.fromhex((TESTDATA / vector["file"]).read_text(encoding="ascii").strip())
    return cls, data, vector["fields"]


def decode(name):
    cls, data, _ = load(name)
    msg = cls()
    msg.ParseFromString(data)
    return msg


def test_vectors_present():
    assert set(VECTORS) == {"activated_job", "stream_activated_jobs_request", "fail_job_request"}


@pytest.mark.parametrize("name", sorted(VECTORS))
def test_decode_matches_manifest_and_reencodes_byte_for_byte(name):
    cls, data, fields = load(name)
    msg = cls()
    msg.ParseFromString(data)
    # Every field in the manifest, in proto3 JSON form (int64 as strings, enums by name).
    assert json_format.MessageToDict(msg, preserving_proto_field_name=True) == fields
    # No unknown fields: the generated code knows every field on the wire.
    assert len(UnknownFieldSet(msg)) == 0
    assert msg.SerializeToString(deterministic=True) == data
    assert msg.SerializeToString() == data
    # Building the message afresh from the manifest encodes to the same bytes.
    rebuilt = json_format.ParseDict(fields, cls())
    assert rebuilt.SerializeToString(deterministic=True) == data


def test_activated_job_fields():
    job = decode("activated_job")
    assert job.key == KEY_2_60  # beyond 2^53: exact, not a float
    assert isinstance(job.key, int)
    assert job.type == "payment-ünïcödé-💳"
    assert job.processInstanceKey == 2251799813685249
    assert job.processDefinitionKey == 2251799813685250
    assert job.elementInstanceKey == 2251799813685251
    assert job.bpmnProcessId == "order-process"
    assert job.processDefinitionVersion == 3
    assert job.elementId == "charge_card"
    assert job.worker == "worker-1"
    assert job.retries == 3
    assert job.deadline == 1763700000000
    assert job.tenantId == "<default>"
    assert job.kind == pb.ActivatedJob.BPMN_ELEMENT
    assert job.listenerEventType == pb.ActivatedJob.UNSPECIFIED
    assert list(job.tags) == ["vip", "eu"]
    assert not job.HasField("userTask")
    assert json.loads(job.customHeaders) == {"method": "visa", "note": "naïve café ☕"}
    variables = json.loads(job.variables)
    assert variables["bigId"] == KEY_2_60  # Python's json keeps big integers exact
    assert variables["city"] == "Zürich"
    assert variables["emoji"] == "🚀"


def test_stream_activated_jobs_request_fields():
    req = decode("stream_activated_jobs_request")
    assert req.type == "payment"
    assert req.worker == "worker-1"
    assert req.timeout == 300000
    assert list(req.fetchVariable) == ["orderId", "amount"]
    assert list(req.tenantIds) == ["<default>"]


def test_fail_job_request_fields():
    req = decode("fail_job_request")
    assert req.jobKey == KEY_2_60
    assert req.retries == 2
    assert req.errorMessage == "card declined: ошибка"
    assert req.retryBackOff == 1500
    assert json.loads(req.variables) == {"attempt": 1}


def test_changed_field_changes_bytes():
    _, data, _ = load("fail_job_request")
    req = decode("fail_job_request")
    req.jobKey = KEY_2_60 + 1
    assert req.SerializeToString(deterministic=True) != data


@pytest.mark.parametrize("name", sorted(VECTORS))
def test_truncated_vector_does_not_decode(name):
    cls, data, _ = load(name)
    with pytest.raises(DecodeError):
        cls().ParseFromString(data[:-1])
