"""Packaging of the skeleton: version, typing marker, nothing pretended."""
from importlib import metadata
from pathlib import Path

import jobwire


def test_version_matches_installed_distribution():
    assert jobwire.__version__ == metadata.version("jobwire")


def test_public_api_is_only_the_version():
    # The worker SDK is not implemented yet: no placeholder classes are exported.
    assert jobwire.__all__ == ["__version__"]
    public = {n for n in vars(jobwire) if not n.startswith("_")}
    assert public == set(), public


def test_py_typed_marker_is_shipped():
    assert (Path(jobwire.__file__).parent / "py.typed").is_file()


def test_generated_stubs_import_and_expose_the_gateway_service():
    from jobwire._proto import gateway_pb2, gateway_pb2_grpc

    service = gateway_pb2.DESCRIPTOR.services_by_name["Gateway"]
    assert service.full_name == "gateway_protocol.Gateway"
    assert "StreamActivatedJobs" in service.methods_by_name
    assert hasattr(gateway_pb2_grpc, "GatewayStub")
