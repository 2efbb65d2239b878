"""Property-based fuzzing of job-variable parsing and serialization (Hypothesis).

Bounded in the normal test run (a few hundred examples per property, no
deadline); ``JOBWIRE_FUZZ_SECONDS=600`` (``make fuzz``) runs each property for
that long (in batches of fresh random examples) and prints how many it tried. Inputs that once failed
are pinned below with ``@example`` (the committed corpus).
"""

from __future__ import annotations

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
BATCH = 2000


def fuzz_settings(ci_examples: int = 100) -> Callable[[Any], Any]:
    """CI: a bounded run. Long runs (JOBWIRE_FUZZ_SECONDS): batches of fresh
    random examples, repeated by `long_run` until the time is up."""
    if SECONDS > 0:
        return settings(max_examples=BATCH, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    return settings(max_examples=ci_examples, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def long_run(prop: Callable[[], None]) -> Callable[[], None]:
    """The test: the property once (CI) or in batches for SECONDS (make fuzz)."""

    def test() -> None:
        if SECONDS <= 0:
            prop()
            return
        t0, batches = time.monotonic(), 0
        while time.monotonic() - t0 < SECONDS:
            prop()
            batches += 1
        print(f"\nfuzz {prop.__name__}: about {batches * BATCH} examples in {time.monotonic() - t0:.0f} s")

    test.__name__ = "test_" + prop.__name__
    test.__doc__ = prop.__doc__
    return test


INT64 = st.integers(min_value=-(2**64), max_value=2**64)
FINITE = st.floats(allow_nan=False, allow_infinity=False)
json_values = st.recursive(
    st.none() | st.booleans() | INT64 | st.integers() | FINITE | st.text(),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(), inner, max_size=5),
    max_leaves=25,
)
json_objects = st.dictionaries(st.text(), json_values, max_size=6)


@fuzz_settings(50)
@given(json_objects)
def round_trip_keeps_every_value_exact(obj: dict) -> None:
    text = variables_to_json(obj)
    back = parse_variables(text)
    assert back == obj
    # integers stay int (never float), whatever their size
    assert json.dumps(back, sort_keys=True) == json.dumps(obj, sort_keys=True)


@fuzz_settings(300)
@given(INT64)
def int64_digits_survive(n: int) -> None:
    v = parse_variables(f'{{"x":{n},"y":[{n}]}}')
    assert v["x"] == n and v["y"][0] == n and type(v["x"]) is int


@fuzz_settings(300)
@given(st.binary() | st.text().map(lambda s: s.encode("utf-8", "surrogatepass")))
@example(b"\xff")
@example(b'{"a":"\xed\xa0\x80"}')
@example(b"[" * 100_000)
def any_bytes_give_a_dict_or_a_typed_error(raw: bytes) -> None:
    try:
        v = parse_variables(raw)
    except InvalidVariablesError:
        return
    assert isinstance(v, dict)


@fuzz_settings(300)
@given(st.text())
@example('{"a":"\\ud800"}')
@example("[" * 100_000 + "]" * 100_000)
@example('{"a":NaN}')
def any_text_gives_a_dict_or_a_typed_error_and_sends_back(raw: str) -> None:
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
def variables_must_be_an_object(v: Any) -> None:
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


@fuzz_settings(30)
@given(json_objects, st.sampled_from([math.nan, math.inf, -math.inf]))
def non_finite_numbers_are_refused_with_the_path(obj: dict, bad: float) -> None:
    obj = {**obj, "bad": [bad]}
    try:
        variables_to_json(obj)
    except InvalidVariablesError as e:
        assert "bad[0]" in str(e)
    else:
        raise AssertionError("a non-finite number was serialized")


test_round_trip_keeps_every_value_exact = long_run(round_trip_keeps_every_value_exact)


test_int64_digits_survive = long_run(int64_digits_survive)


test_any_bytes_give_a_dict_or_a_typed_error = long_run(any_bytes_give_a_dict_or_a_typed_error)


test_any_text_gives_a_dict_or_a_typed_error_and_sends_back = long_run(any_text_gives_a_dict_or_a_typed_error_and_sends_back)


test_variables_must_be_an_object = long_run(variables_must_be_an_object)


test_non_finite_numbers_are_refused_with_the_path = long_run(non_finite_numbers_are_refused_with_the_path)
