"""Lossless JSON for job variables.

Python integers are exact, so an int64 beyond 2**53 survives a round trip as
long as nothing converts it to float: parsing keeps integers as ``int`` and
serializing never goes through ``float`` for them. Variables must be a JSON
object; anything else is rejected with :class:`InvalidVariablesError` before a
request is sent.
"""

from __future__ import annotations

import json
import math
from typing import Any, Dict, Mapping, Union

from .errors import InvalidVariablesError

MAX_VARIABLES_BYTES = 4 * 1024 * 1024 - 16 * 1024
"""Largest variables document sent: a gRPC message is at most 4 MiB at the gateway (Zeebe's
default), and the request needs some room around the variables."""

VariablesInput = Union[Mapping[str, Any], str, bytes, None]
"""Variables given to the SDK: a mapping, a JSON object text, or None (no variables)."""


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _parse_float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        # 1e400 would silently become inf here, and then could not be sent back
        shown = text if len(text) <= 40 else text[:40] + "..."
        raise ValueError(f"number {shown} is outside the range of a double")
    return value


_DECODER = json.JSONDecoder(parse_constant=_reject_constant, parse_float=_parse_float)
"""The lossless decoder, made once (json.loads with hooks would make one per call)."""


def parse_variables(raw: Union[str, bytes]) -> Dict[str, Any]:
    """Parses a JSON object text losslessly (integers stay ``int``); raises InvalidVariablesError."""
    text = _decode(raw)
    if text == "{}" or not text.strip():
        return {}
    try:
        value = _DECODER.decode(text)
    except ValueError as e:
        raise InvalidVariablesError(f"jobwire: variables are not valid JSON: {e}") from e
    except RecursionError as e:  # found by the Hypothesis fuzzing (test_json_properties.py)
        raise InvalidVariablesError("jobwire: variables are nested too deeply to parse") from e
    if not isinstance(value, dict):
        raise InvalidVariablesError(f"jobwire: variables must be a JSON object, got {type(value).__name__}")
    return value


def parse_json_value(raw: Union[str, bytes]) -> Any:
    """Parses any JSON document losslessly (integers stay ``int``), e.g. a decision's output; an
    empty text is ``None``. Raises InvalidVariablesError for text that is not JSON."""
    text = _decode(raw)
    if not text.strip():
        return None
    try:
        return _DECODER.decode(text)
    except ValueError as e:
        raise InvalidVariablesError(f"jobwire: not valid JSON: {e}") from e
    except RecursionError as e:
        raise InvalidVariablesError("jobwire: JSON nested too deeply to parse") from e


def _decode(raw: Union[str, bytes]) -> str:
    if not isinstance(raw, bytes):
        return raw
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:  # found by the Hypothesis fuzzing
        raise InvalidVariablesError(f"jobwire: variables are not valid UTF-8: {e}") from e


def _check(value: Any, path: str) -> None:
    # json.dumps would accept tuples, non-str keys and (with allow_nan=False) still
    # reject NaN; check first so the error names the offending path.
    if value is None or isinstance(value, (str, bool, int)):
        return
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            raise InvalidVariablesError(f"jobwire: {path} is {value}, which JSON cannot represent")
        return
    if isinstance(value, Mapping):
        for k, v in value.items():
            if not isinstance(k, str):
                raise InvalidVariablesError(f"jobwire: {path} has a non-string key {k!r}")
            _check(v, f"{path}.{k}")
        return
    if isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            _check(v, f"{path}[{i}]")
        return
    raise InvalidVariablesError(f"jobwire: {path} is a {type(value).__name__}, which is not JSON-serializable")


def variables_to_json(value: VariablesInput, what: str = "variables") -> str:
    """Serializes variables to a JSON object text ('' for None).

    A ``str``/``bytes`` must already be a JSON object text (it is validated and
    sent unchanged, so it stays byte-exact); a mapping is serialized with exact
    integers. Anything else raises :class:`InvalidVariablesError`.
    """
    if value is None:
        return ""
    if isinstance(value, (str, bytes)):
        text = _decode(value)
        if not text.strip():
            return ""
        try:
            parse_variables(text)
        except InvalidVariablesError as e:
            raise InvalidVariablesError(f"jobwire: {what}: {e}") from e
        return _sized(text, what)
    if not isinstance(value, Mapping):
        raise InvalidVariablesError(
            f"jobwire: {what} must be a mapping (JSON object) or a JSON object string, got {type(value).__name__}"
        )
    _check(value, what)
    return _sized(json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False), what)


def _sized(text: str, what: str) -> str:
    try:
        n = len(text.encode("utf-8"))
    except UnicodeEncodeError as e:
        # a lone surrogate (e.g. parsed from the escape "\\ud800"): not Unicode, cannot be sent.
        # Found by the Hypothesis fuzzing.
        raise InvalidVariablesError(
            f"jobwire: {what} contains a lone surrogate (position {e.start}), which is not valid UTF-8"
        ) from e
    if n > MAX_VARIABLES_BYTES:
        raise InvalidVariablesError(
            f"jobwire: {what} is {n} bytes of JSON; the gateway accepts at most 4 MiB per message"
        )
    return text

