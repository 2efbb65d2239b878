"""Property-based fuzzing of job-variable parsing and serialization (Hypothesis).

Bounded in the normal test run (a few hundred examples per property, no
deadline); ``JOBWIRE_FUZZ_SECONDS=600`` (``make fuzz``) runs each property for
that long and prints how many examples it tried. Failing examples found once
are kept by Hypothesis in ``.hypothesis/`` and also pinned below with
``@example``.
"""

from __future__ import annotations

import functools
import json
import math
import os
import time
from typing import Any, Callable

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from jobwire._json import parse_variables, variables_to_json
from jobwire.errors import InvalidVariablesError

SECONDS = float(os.environ.get("JOBWIRE_FUZZ_SECONDS", "0"))
_COUNTS: dict = {}


def fuzz_settings(ci_examples: int = 300) -> Callable[[Any], Any]:
    if SECONDS > 0:
        return settings(max_examples=10**9, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    return settings(max_examples=ci_examples, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def counted(name: str) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Counts examples and, in long runs, stops a property after SECONDS."""

    def wrap(fn: Callable[..., None]) -> Callable[..., None]:
        @functools.wraps(fn)
        def inner(*a: Any, **k: Any) -> None:
            c = _COUNTS.setdefault(name, {"n": 0, "t0": time.monotonic()})
            c["n"] += 1
            if SECONDS > 0 and time.monotonic() - c["t0"] > SECONDS:
                return
            fn(*a, **k)

        return inner

    return wrap


def teardown_module() -> None:
    if SECONDS > 0:
        for name, c in _COUNTS.items():
            print(f"fuzz {name}: {c['n']} examples in {time.monotonic() - c['t0']:.0f} s")


INT64 = st.integers(min_value=-(2**64), max_value=2**64)
FINITE = st.floats(allow_nan=False, allow_infinity=False)
json_values = st.recursive(
    st.none() | st.booleans() | INT64 | st.integers() | FINITE | st.text(),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(), inner, max_size=5),
    max_leaves=25,
)
json_objects = st.dictionaries(st.text(), json_values, max_size=6)


@fuzz_settings()
@given(json_objects)
@counted("round-trip")
def test_round_trip_keeps_every_value_exact(obj: dict) -> None:
    text = variables_to_json(obj)
    back = parse_variables(text)
    assert back == obj
    # integers stay int (never float), whatever their size
    assert json.dumps(back, sort_keys=True) == json.dumps(obj, sort_keys=True)


@fuzz_settings(1000)
@given(INT64)
@counted("exact-integers")
def test_int64_digits_survive(n: int) -> None:
    v = parse_variables(f'{{"x":{n},"y":[{n}]}}')
    assert v["x"] == n and v["y"][0] == n and type(v["x"]) is int


@fuzz_settings(1000)
@given(st.binary() | st.text().map(lambda s: s.encode("utf-8", "surrogatepass")))
@example(b"\xff")
@example(b'{"a":"\xed\xa0\x80"}')
@example(b"[" * 100_000)
@counted("bytes")
def test_any_bytes_give_a_dict_or_a_typed_error(raw: bytes) -> None:
    try:
        v = parse_variables(raw)
    except InvalidVariablesError:
        return
    assert isinstance(v, dict)


@fuzz_settings(1000)
@given(st.text())
@example('{"a":"\\ud800"}')
@example("[" * 100_000 + "]" * 100_000)
@example('{"a":NaN}')
@counted("text")
def test_any_text_gives_a_dict_or_a_typed_error_and_sends_back(raw: str) -> None:
    try:
        v = parse_variables(raw)
    except InvalidVariablesError:
        return
    assert isinstance(v, dict)
    # whatever was parsed can be sent back (a handler returning the job's
    # variables), or is refused with a typed error, never another exception
    try:
        variables_to_json(v)
    except InvalidVariablesError:
        pass


@fuzz_settings()
@given(json_values)
@counted("non-objects")
def test_variables_must_be_an_object(v: Any) -> None:
    text = json.dumps(v)
    if isinstance(v, dict):
        assert parse_variables(text) == v
    else:
        try:
            parse_variables(text)
        except InvalidVariablesError as e:
            assert "JSON object" in str(e)
        else:
            raise AssertionError(f"{text!r} was accepted as variables")


@fuzz_settings()
@given(json_objects, st.sampled_from([math.nan, math.inf, -math.inf]))
@counted("non-finite")
def test_non_finite_numbers_are_refused_with_the_path(obj: dict, bad: float) -> None:
    obj = {**obj, "bad": [bad]}
    try:
        variables_to_json(obj)
    except InvalidVariablesError as e:
        assert "bad[0]" in str(e)
    else:
        raise AssertionError("a non-finite number was serialized")
