"""The conformance matrix: every SDK driver x every scenario."""
from __future__ import annotations

import time
import uuid

import pytest

from conftest import load_expectations, run_id
from execute import run_case


def test_scenario(matrix_case, target, work_dir, request):
    sdk, sc = matrix_case
    request.node._jw = {"sdk": sdk, "scenario": sc.name}
    missing = [c for c in sc.requires if c not in target.capabilities]
    if missing:
        pytest.skip(f"needs {', '.join(missing)} (not offered by target {target.kind})")
    if target.external and sc.data.get("engine", "shared") != "shared":
        pytest.skip(f"needs an engine of the runner's own (engine: {sc.data.get('engine')}), "
                    f"not offered by target {target.kind}")
    xfail = load_expectations(sdk).get(sc.name)
    if isinstance(xfail, dict) and "skip" in xfail:
        # the client cannot express the scenario (an official client's missing feature): not run
        pytest.skip(f"cannot express: {xfail['skip']}")
    if xfail:
        request.applymarker(pytest.mark.xfail(reason=str(xfail), strict=True))  # a pass fails: remove the entry
    wd = work_dir / sdk / sc.name.replace("/", "__")
    wd.mkdir(parents=True, exist_ok=True)
    t0 = time.monotonic()
    try:
        case = run_case(sc, sdk, target, wd, uuid.uuid4().hex[:6], run_id(request.config) if target.external else "")
        request.node._jw_unchecked = case.unchecked
        request.node._jw_version = getattr(case, "sdk_version", "")
    finally:
        request.node._jw_seconds = time.monotonic() - t0
        request.node._jw_log = str(wd)
