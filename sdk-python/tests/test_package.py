"""Packaging and typing: version, py.typed, public API with docstrings, mypy --strict,
and a wheel + sdist that install into a fresh venv and run a worker against the engine."""

from __future__ import annotations

import inspect
import os
import subprocess
import sys
import textwrap
import venv
from importlib import metadata
from pathlib import Path
from typing import Any

import jobwire
from conftest import one_task_bpmn, unique
from engine import Engine

HERE = Path(__file__).resolve().parents[1]


def test_version_matches_installed_distribution() -> None:
    assert jobwire.__version__ == metadata.version("jobwire")


def test_py_typed_marker_is_shipped() -> None:
    assert (Path(jobwire.__file__).parent / "py.typed").is_file()


def test_every_public_name_has_a_docstring() -> None:
    import jobwire.fastapi
    import jobwire.sync
    import jobwire.testing

    missing = []
    for mod in (jobwire, jobwire.sync, jobwire.testing, jobwire.fastapi):
        for name in mod.__all__:
            if name.startswith("__"):
                continue
            obj = getattr(mod, name)
            if not inspect.getdoc(obj):
                missing.append(f"{mod.__name__}.{name}")
            if inspect.isclass(obj):
                for attr, member in vars(obj).items():
                    if attr.startswith("_") or not (inspect.isfunction(member) or isinstance(member, property)):
                        continue
                    if not inspect.getdoc(member):
                        missing.append(f"{mod.__name__}.{name}.{attr}")
    assert missing == []


def test_generated_stubs_import_and_expose_the_gateway_service() -> None:
    from jobwire._proto import gateway_pb2, gateway_pb2_grpc

    service = gateway_pb2.DESCRIPTOR.services_by_name["Gateway"]
    assert service.full_name == "gateway_protocol.Gateway"
    assert "StreamActivatedJobs" in service.methods_by_name
    assert hasattr(gateway_pb2_grpc, "GatewayStub")


def test_mypy_strict_is_clean() -> None:
    r = subprocess.run([sys.executable, "-m", "mypy"], cwd=HERE, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr


README_WORKER = textwrap.dedent(
    """
    import asyncio, os, sys
    from jobwire import Client, Job

    async def main() -> None:
        async with Client() as client:
            async def handler(job: Job) -> dict:
                return {"doubled": job.variables["n"] * 2}
            client.worker(os.environ["JT"], handler)
            res = await client.create_process_instance_with_result(os.environ["PID"], variables={"n": 2**60}, request_timeout=20)
            print("RESULT", res.variables["doubled"])

    asyncio.run(main())
    """
)


def test_wheel_and_sdist_install_into_a_fresh_venv_and_run_a_worker(tmp_path: Path, engine: Engine) -> None:
    dist = tmp_path / "dist"
    r = subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--wheel", "--sdist", "--outdir", str(dist), str(HERE)],
        capture_output=True, text=True, timeout=300,
    )
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    wheels = list(dist.glob("jobwire-*.whl"))
    sdists = list(dist.glob("jobwire-*.tar.gz"))
    assert len(wheels) == 1 and len(sdists) == 1
    # Apache-2.0, and the LICENSE and NOTICE travel with both
    import tarfile
    import zipfile
    with zipfile.ZipFile(wheels[0]) as whl:
        names = whl.namelist()
        meta = whl.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    assert "License-Expression: Apache-2.0" in meta
    for f in ("LICENSE", "NOTICE"):
        assert any(n.endswith(f".dist-info/licenses/{f}") for n in names), f"{f} missing from the wheel"
    with tarfile.open(sdists[0]) as sd:
        assert {f"jobwire-{jobwire.__version__}/{f}" for f in ("LICENSE", "NOTICE")} <= set(sd.getnames())
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    py = env_dir / "bin" / "python"
    # `pip install ./sdk-python` from a fresh venv: dependencies resolved from their ranges.
    r = subprocess.run([str(py), "-m", "pip", "install", "-q", "--disable-pip-version-check", str(wheels[0])], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    import asyncio

    jt, pid = unique("pkg"), unique("p")

    async def deploy() -> None:
        async with jobwire.Client(address=engine.address) as c:
            await c.deploy_resource((f"{pid}.bpmn", one_task_bpmn(pid, jt)))

    asyncio.run(deploy())
    script = tmp_path / "worker.py"
    script.write_text(README_WORKER)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ZEEBE_", "CAMUNDA_"))}
    env.update(ZEEBE_ADDRESS=engine.address, JT=jt, PID=pid)
    r = subprocess.run([str(py), str(script)], capture_output=True, text=True, timeout=120, env=env, cwd=tmp_path)
    assert r.returncode == 0, r.stderr[-3000:]
    assert f"RESULT {2 * 2**60}" in r.stdout
    # the worker of README.md, verbatim, in the fresh venv: it handles `charge` until SIGTERM
    import re
    import signal

    block = re.search(r"```python\n(.*?)```", (HERE / "README.md").read_text(), re.S)
    assert block, "no python block in README.md"
    (tmp_path / "readme_worker.py").write_text(block.group(1))
    cpid = unique("charge")

    async def deploy_charge() -> None:
        async with jobwire.Client(address=engine.address) as c:
            await c.deploy_resource((f"{cpid}.bpmn", one_task_bpmn(cpid, "charge")))

    asyncio.run(deploy_charge())
    proc = subprocess.Popen([str(py), str(tmp_path / "readme_worker.py")], env=env, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:

        async def charge_one() -> Any:
            async with jobwire.Client(address=engine.address) as c:
                return await c.create_process_instance_with_result(cpid, variables={"orderId": "o-1", "amount": 42}, request_timeout=30)

        res = asyncio.run(charge_one())
        assert res.variables["charged"] == 42
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=20)
        assert proc.returncode == 0, err[-2000:]
    finally:
        if proc.poll() is None:
            proc.kill()
    # the installed copy is the wheel, not this checkout
    r = subprocess.run([str(py), "-c", "import jobwire, sys; print(jobwire.__file__)"], capture_output=True, text=True, cwd=tmp_path)
    assert str(env_dir) in r.stdout
