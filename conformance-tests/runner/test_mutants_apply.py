"""Every mutant of the mutation proofs applies to the tree as it is.

conformance-tests/mutation/mutants.yaml and mutants-*.yaml (scenarios) and
conformance-tests/vectors/mutants.yaml (vector tests) name exact search
strings in the SDKs' sources. A refactor that moves or rewrites such a line
silently turns its mutant into one that "does not apply", and the behaviour
it guarded loses its proof. This test fails at once instead.
"""
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
FILES = [ROOT / "conformance-tests" / "mutation" / "mutants.yaml",
         *sorted((ROOT / "conformance-tests" / "mutation").glob("mutants-*.yaml")),
         ROOT / "conformance-tests" / "vectors" / "mutants.yaml",
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


def _mutation_module():
    import importlib.util
    spec = importlib.util.spec_from_file_location("jw_mutation", ROOT / "conformance-tests" / "scripts" / "mutation.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_mutation_script_reads_every_mutants_file(tmp_path):
    """scripts/mutation.py runs the mutants of mutants.yaml and of every mutants-*.yaml (name order), and
    refuses an id used twice across the files."""
    mod = _mutation_module()
    one = {"sdk": "go", "what": "w", "edits": [{"file": "f", "find": "a", "replace": "b"}], "scenarios": ["x/y"]}
    (tmp_path / "mutants.yaml").write_text(yaml.safe_dump([{"id": "m1", **one}]))
    (tmp_path / "mutants-commands-node.yaml").write_text(yaml.safe_dump([{"id": "m3", **one}]))
    (tmp_path / "mutants-commands-go.yaml").write_text(yaml.safe_dump([{"id": "m2", **one}]))
    (tmp_path / "other.yaml").write_text(yaml.safe_dump([{"id": "m9", **one}]))
    got = mod.load_mutants(tmp_path)
    assert [(m["id"], m["source"]) for m in got] == [
        ("m1", "mutants.yaml"), ("m2", "mutants-commands-go.yaml"), ("m3", "mutants-commands-node.yaml")]
    (tmp_path / "mutants-commands-py.yaml").write_text(yaml.safe_dump([{"id": "m2", **one}]))
    with pytest.raises(ValueError, match="m2 already in mutants-commands-go.yaml"):
        mod.load_mutants(tmp_path)
    (tmp_path / "mutants-commands-py.yaml").write_text(yaml.safe_dump([{"id": "m4", "sdk": "python"}]))
    with pytest.raises(ValueError, match="lacks"):
        mod.load_mutants(tmp_path)


def test_repository_mutants_load():
    mod = _mutation_module()
    got = mod.load_mutants(ROOT / "conformance-tests" / "mutation")
    assert len(got) == len([m for k, m in MUTANTS if k == "mutation"])
    names = {f"{p.parent.parent.name}/{p.parent.name}"
             for p in (ROOT / "conformance-tests" / "scenarios").glob("*/*/scenario.yaml")}
    for m in got:
        unknown = [s for s in m["scenarios"] if s not in names]
        assert not unknown, f"{m['source']}: mutant {m['id']} names no such scenario: {unknown}"
