#!/usr/bin/env python3
"""Writes the cross-language golden vectors in proto/testdata/.

Each vector is one encoded message, stored as lowercase hex (one line) so it
diffs well and reads in any language. Every SDK's tests decode each vector
with its own generated code and re-encode it; the bytes must match exactly.
The expected field values are in vectors.json beside the files.

Encoding is canonical: fields in number order, no unknown fields, default
values omitted, packed repeated scalars (protobuf's deterministic encoding,
which every official runtime produces for these messages).
"""
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
# Only the generated module, not the SDK package (whose runtime dependencies,
# such as opentelemetry-api, the tools venv does not carry).
sys.path.insert(0, str(HERE.parents[1] / "sdk-python" / "src" / "jobwire" / "_proto"))

import gateway_pb2 as pb  # noqa: E402

KEY_2_60 = 2**60 + 7  # beyond 2^53: lossy as a JS number / float64


def vectors():
    yield "activated_job", pb.ActivatedJob(
        key=KEY_2_60,
        type="payment-ünïcödé-💳",
        processInstanceKey=2251799813685249,
        bpmnProcessId="order-process",
        processDefinitionVersion=3,
        processDefinitionKey=2251799813685250,
        elementId="charge_card",
        elementInstanceKey=2251799813685251,
        customHeaders='{"method":"visa","note":"naïve café ☕"}',
        worker="worker-1",
        retries=3,
        deadline=1763700000000,
        variables='{"orderId":"A-1","amount":12.5,"bigId":1152921504606846983,"city":"Zürich","emoji":"🚀"}',
        tenantId="<default>",
        kind=pb.ActivatedJob.BPMN_ELEMENT,
        listenerEventType=pb.ActivatedJob.UNSPECIFIED,
        tags=["vip", "eu"],
    )
    yield "stream_activated_jobs_request", pb.StreamActivatedJobsRequest(
        type="payment",
        worker="worker-1",
        timeout=300000,
        fetchVariable=["orderId", "amount"],
        tenantIds=["<default>"],
    )
    yield "fail_job_request", pb.FailJobRequest(
        jobKey=KEY_2_60,
        retries=2,
        errorMessage="card declined: ошибка",
        retryBackOff=1500,
        variables='{"attempt":1}',
    )


def main():
    manifest = {}
    for name, msg in vectors():
        data = msg.SerializeToString(deterministic=True)
        (HERE / f"{name}.hex").write_text(data.hex() + "\n")
        from google.protobuf import json_format
        manifest[name] = {
            "message": "gateway_protocol." + msg.DESCRIPTOR.name,
            "file": f"{name}.hex",
            "fields": json.loads(json_format.MessageToJson(msg, preserving_proto_field_name=True,
                                                           use_integers_for_enums=False)),
        }
    (HERE / "vectors.json").write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
