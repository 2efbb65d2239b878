"""Every mutant of the mutation proofs applies to the tree as it is.

conformance-tests/mutation/mutants.yaml (scenarios) and
conformance-tests/vectors/mutants.yaml (vector tests) name exact search
strings in the SDKs' sources. A refactor that moves or rewrites such a line
silently turns its mutant into one that "does not apply", and the behaviour
it guarded loses its proof. This test fails at once instead.
"""
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
FILES = [ROOT / "conformance-tests" / "mutation" / "mutants.yaml", ROOT / "conformance-tests" / "vectors" / "mutants.yaml",
         *sorted((ROOT / "conformance-tests" / "vectors").glob("mutants-*.yaml"))]
MUTANTS = [(f.parent.name, m) for f in FILES for m in (yaml.safe_load(f.read_text()) or [])]


@pytest.mark.parametrize("kind,mutant", MUTANTS, ids=[f"{k}:{m['id']}" for k, m in MUTANTS])
def test_mutant_applies(kind, mutant):
    assert mutant["edits"], "a mutant without edits"
    for e in mutant["edits"]:
        path = ROOT / e["file"]
        assert path.exists(), f"{e['file']} does not exist"
        n = path.read_text(encoding="utf-8").count(e["find"])
        want = e.get("count", 1)
        assert n == want, f"{e['file']}: `find` occurs {n} times, want {want}: {e['find']!r}"
        assert e["replace"] != e["find"], "an edit that changes nothing"


def test_ids_unique():
    ids = [m["id"] for _, m in MUTANTS]
    assert len(ids) == len(set(ids))
