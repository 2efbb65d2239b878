"""Typed handlers: arguments injected by name and annotation, input checked against the declared
types before the handler runs, typed results turned into variables.

Injection (one rule per parameter, first match wins):
- annotated ``Job`` -> the job;
- named ``headers`` -> the custom headers (validated into a dataclass / TypedDict / pydantic model
  when annotated with one, else the plain dict);
- annotated with a dataclass, TypedDict or pydantic model -> the whole variables object validated
  into it;
- annotated ``dict`` / ``Mapping`` / ``Dict[str, Any]`` -> all variables as a dict;
- ``**kwargs`` -> the variables no other parameter takes;
- unannotated and named ``job`` -> the job;
- anything else -> the single variable of that name, checked against its annotation.

Checked annotations: str, int, float (an int is accepted), bool (never an int), None, Any, list,
dict, List[X] / list[X], Dict[str, X] / dict[str, X], Optional / Union, Literal, nested dataclass /
TypedDict / pydantic model; anything else is passed unchecked. pydantic models are validated by
pydantic itself (``model_validate``); pydantic is never imported by jobwire: a class can only be a
pydantic model when the application imported pydantic.
"""

from __future__ import annotations

import collections.abc
import dataclasses
import functools
import inspect
import sys
import typing
from typing import Any, Callable, Dict, List, Optional, Tuple

from .errors import ConfigurationError, InvalidInputError
from .job import Job

_NoneType = type(None)
_EMPTY = inspect.Parameter.empty
_UNION_TYPES: Tuple[Any, ...] = (typing.Union,)
if sys.version_info >= (3, 10):
    import types as _types

    _UNION_TYPES = (typing.Union, _types.UnionType)

Issues = List[Tuple[str, str]]

#: The W3C trace context variable a job's span takes its parent from (Telemetry): a derived
#: fetch_variables list names it too, so a typed worker does not cut the job's trace.
TRACEPARENT = "traceparent"


def _json_type(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int):
        return "integer"
    if isinstance(v, float):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    if isinstance(v, dict):
        return "object"
    return type(v).__name__


def _type_name(tp: Any) -> str:
    names = {str: "string", int: "integer", float: "number", bool: "boolean", list: "array", dict: "object", _NoneType: "null"}
    if tp in names:
        return names[tp]
    origin = typing.get_origin(tp)
    if origin in names:
        return names[origin]
    if origin is typing.Literal:
        return "one of " + ", ".join(repr(a) for a in typing.get_args(tp))
    if is_model(tp):
        return "object"
    return getattr(tp, "__name__", str(tp))


def is_pydantic_model(tp: Any) -> bool:
    """True for a pydantic BaseModel subclass (without importing pydantic)."""
    mod = sys.modules.get("pydantic")
    if mod is None or not isinstance(tp, type):
        return False
    base = getattr(mod, "BaseModel", None)
    return base is not None and issubclass(tp, base)


def is_typeddict(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, dict) and hasattr(tp, "__required_keys__") and hasattr(tp, "__total__")


def is_model(tp: Any) -> bool:
    """A type that receives a whole JSON object: dataclass, TypedDict or pydantic model."""
    return (isinstance(tp, type) and dataclasses.is_dataclass(tp)) or is_typeddict(tp) or is_pydantic_model(tp)


@functools.lru_cache(maxsize=1024)
def _hints(obj: Any) -> Dict[str, Any]:
    """The resolved annotations of a type (cached: checked on every job); unresolvable ones are Any."""
    try:
        return typing.get_type_hints(obj)
    except Exception:  # noqa: BLE001 - an unresolvable annotation is left unchecked
        raw = getattr(obj, "__annotations__", {}) or {}
        return {k: (Any if isinstance(v, str) else v) for k, v in raw.items()}


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def model_fields(tp: Any) -> List[str]:
    """The variable names a model type reads (dataclass init fields, TypedDict keys, pydantic
    fields by alias)."""
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return [f.name for f in dataclasses.fields(tp) if f.init]
    if is_typeddict(tp):
        return list(_hints(tp).keys())
    if is_pydantic_model(tp):
        out = []
        for name, f in tp.model_fields.items():
            alias = f.validation_alias if isinstance(f.validation_alias, str) else f.alias
            out.append(alias or name)
        return out
    return []


def convert(value: Any, tp: Any, path: str, issues: Issues) -> Any:
    """Checks ``value`` against ``tp``; appends ``(path, problem)`` for every mismatch; returns the
    value converted (models instantiated)."""
    if tp is Any or tp is object or tp is _EMPTY:
        return value
    origin = typing.get_origin(tp)
    if origin in _UNION_TYPES:
        args = typing.get_args(tp)
        if value is None and _NoneType in args:
            return None
        for a in args:
            if a is _NoneType:
                continue
            sub: Issues = []
            v = convert(value, a, path, sub)
            if not sub:
                return v
        non_none = [a for a in args if a is not _NoneType]
        if len(non_none) == 1 and isinstance(value, (dict, list)):
            return convert(value, non_none[0], path, issues)  # the nested problems are more useful
        issues.append((path, f"expected {' or '.join(_type_name(a) for a in args)}, got {_json_type(value)}"))
        return value
    if origin is typing.Literal:
        args = typing.get_args(tp)
        if any(value == a and type(value) is type(a) for a in args):
            return value
        issues.append((path, f"expected {_type_name(tp)}, got {value!r}"))
        return value
    if tp is _NoneType or tp is None:
        if value is not None:
            issues.append((path, f"expected null, got {_json_type(value)}"))
        return value
    if tp is bool:
        ok = isinstance(value, bool)
    elif tp is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif tp is float:
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    elif tp is str:
        ok = isinstance(value, str)
    elif tp is list or origin is list:
        if not isinstance(value, list):
            issues.append((path, f"expected array, got {_json_type(value)}"))
            return value
        args = typing.get_args(tp)
        return [convert(v, args[0], f"{path}[{i}]", issues) for i, v in enumerate(value)] if args else value
    elif tp is dict or origin is dict or origin is collections.abc.Mapping or tp is typing.Mapping:
        if not isinstance(value, dict):
            issues.append((path, f"expected object, got {_json_type(value)}"))
            return value
        args = typing.get_args(tp)
        return {k: convert(v, args[1], _join(path, k), issues) for k, v in value.items()} if len(args) == 2 else value
    elif is_model(tp):
        return _convert_model(value, tp, path, issues)
    else:
        return value  # not a checked annotation
    if not ok:
        issues.append((path, f"expected {_type_name(tp)}, got {_json_type(value)}"))
    return value


def _convert_model(value: Any, tp: Any, path: str, issues: Issues) -> Any:
    if is_pydantic_model(tp):
        err_cls = getattr(sys.modules["pydantic"], "ValidationError")
        try:
            return tp.model_validate(value)
        except err_cls as e:
            for err in e.errors():
                loc = path
                for part in err.get("loc", ()):
                    loc = f"{loc}[{part}]" if isinstance(part, int) else _join(loc, str(part))
                msg = str(err.get("msg", "invalid"))
                issues.append((loc, "missing" if err.get("type") == "missing" else msg))
            return value
    if not isinstance(value, dict):
        issues.append((path, f"expected object, got {_json_type(value)}"))
        return value
    before = len(issues)
    hints = _hints(tp)
    if is_typeddict(tp):
        required: "frozenset[str]" = getattr(tp, "__required_keys__", frozenset())
        out = dict(value)
        for k, t in hints.items():
            if k not in value:
                if k in required:
                    issues.append((_join(path, k), "missing"))
                continue
            out[k] = convert(value[k], t, _join(path, k), issues)
        return out
    kwargs: Dict[str, Any] = {}
    for f in dataclasses.fields(tp):
        if not f.init:
            continue
        if f.name not in value:
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                issues.append((_join(path, f.name), "missing"))
            continue
        kwargs[f.name] = convert(value[f.name], hints.get(f.name, Any), _join(path, f.name), issues)
    if len(issues) > before:
        return value
    try:
        return tp(**kwargs)
    except (TypeError, ValueError) as e:  # a __post_init__ check
        issues.append((path, str(e) or type(e).__name__))
        return value


def to_output(result: Any) -> Any:
    """A typed result as variables: dataclass -> ``dataclasses.asdict``, pydantic model ->
    ``model_dump(mode="json", by_alias=True)``; anything else unchanged."""
    if dataclasses.is_dataclass(result) and not isinstance(result, type):
        return dataclasses.asdict(result)
    if is_pydantic_model(type(result)):
        return result.model_dump(mode="json", by_alias=True)
    return result


# --- handler signatures ---------------------------------------------------------------------------
_JOB, _HEADERS, _MODEL, _ALL, _REST, _VAR = "job", "headers", "model", "all", "rest", "var"


def _is_mapping_type(tp: Any) -> bool:
    """A bare ``dict`` / ``Mapping`` (or one of ``Any`` values): all variables. ``Dict[str, int]``
    is a single variable of that type."""
    if tp in (dict, typing.Dict, typing.Mapping, collections.abc.Mapping):
        return True
    return typing.get_origin(tp) in (dict, collections.abc.Mapping) and typing.get_args(tp)[1:] == (Any,)


def _allows_none(tp: Any) -> bool:
    return tp is _EMPTY or tp is Any or (typing.get_origin(tp) in _UNION_TYPES and _NoneType in typing.get_args(tp))


class TypedHandler:
    """A handler's parameters, analysed once at registration."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.fn = fn
        try:
            sig = inspect.signature(fn)
        except (TypeError, ValueError) as e:
            raise ConfigurationError(f"jobwire: cannot read the parameters of handler {fn!r}: {e}") from e
        try:
            hints = typing.get_type_hints(fn)
        except Exception as e:  # noqa: BLE001 - a string annotation that does not resolve
            raise ConfigurationError(
                f"jobwire: cannot resolve the annotations of handler {getattr(fn, '__qualname__', fn)!r} ({e}); "
                "define the types it uses where the handler's module can see them (e.g. at module level)"
            ) from e
        self.params: List[Tuple[str, str, Any, Any]] = []
        for p in sig.parameters.values():
            where = f"parameter {p.name!r} of handler {getattr(fn, '__qualname__', fn)!r}"
            if p.kind is p.VAR_POSITIONAL:
                raise ConfigurationError(f"jobwire: {where}: *args cannot be injected; name the parameters")
            if p.kind is p.POSITIONAL_ONLY:
                raise ConfigurationError(f"jobwire: {where}: positional-only parameters cannot be injected by name")
            ann = hints.get(p.name, _EMPTY)
            if p.kind is p.VAR_KEYWORD:
                role = _REST
            elif ann is Job:
                role = _JOB
            elif p.name == "headers":
                role = _HEADERS
            elif is_model(ann):
                role = _MODEL
            elif _is_mapping_type(ann):
                role = _ALL
            elif ann is _EMPTY and p.name == "job":
                role = _JOB
            else:
                role = _VAR
            self.params.append((p.name, role, ann, p.default))
        self._named = {n for n, r, _, _ in self.params if r != _REST}
        # The models that declare traceparent get it; the others are validated without it when
        # the worker's fetched list names it (strip_traceparent, set by the router), so a strict
        # model (pydantic extra="forbid") does not reject the variable fetched for tracing.
        self._traceparent_models = {n for n, r, ann, _ in self.params if r == _MODEL and TRACEPARENT in model_fields(ann)}
        self.strip_traceparent = False

    def fetch_variables(self) -> Optional[List[str]]:
        """The variables the handler reads, then ``traceparent`` (the job span's parent) unless
        named already; ``None``: all (a dict or ``**kwargs`` parameter, or no variable parameter at
        all)."""
        names: List[str] = []
        for name, role, ann, _ in self.params:
            if role in (_ALL, _REST):
                return None
            if role == _MODEL:
                names += model_fields(ann)
            elif role == _VAR:
                names.append(name)
        out = list(dict.fromkeys(names))
        if out and TRACEPARENT not in out:
            out.append(TRACEPARENT)
        return out or None

    def bind(self, job: Job) -> Dict[str, Any]:
        """The handler's keyword arguments for ``job``; raises InvalidInputError (naming every field)."""
        issues: Issues = []
        kwargs: Dict[str, Any] = {}
        variables = job.variables
        model_variables = variables
        if self.strip_traceparent and TRACEPARENT in variables:
            model_variables = {k: v for k, v in variables.items() if k != TRACEPARENT}
        for name, role, ann, default in self.params:
            if role == _JOB:
                kwargs[name] = job
            elif role == _HEADERS:
                headers = dict(job.custom_headers)
                kwargs[name] = convert(headers, ann, "headers", issues) if is_model(ann) else headers
            elif role == _MODEL:
                kwargs[name] = convert(variables if name in self._traceparent_models else model_variables, ann, "", issues)
            elif role == _ALL:
                kwargs[name] = dict(variables)
            elif role == _REST:
                kwargs.update({k: v for k, v in variables.items() if k not in self._named and k.isidentifier()})
            elif name in variables:
                kwargs[name] = convert(variables[name], ann, name, issues)
            elif default is not _EMPTY:
                pass
            elif _allows_none(ann) and ann is not _EMPTY:
                kwargs[name] = None
            else:
                issues.append((name, "missing"))
        if issues:
            raise InvalidInputError(issues)
        return kwargs


def typed_invoker(fn: Callable[..., Any], analysis: TypedHandler, is_async: bool) -> Callable[[Job], Any]:
    """The ``handler(job)`` the worker runs: binds (validates) the arguments, calls ``fn``, turns a
    typed result into variables. A sync ``fn`` stays sync (it runs in the worker's thread pool)."""
    if is_async:

        async def invoke_async(job: Job) -> Any:
            return to_output(await fn(**analysis.bind(job)))

        invoke_async.__name__ = invoke_async.__qualname__ = getattr(fn, "__name__", "handler")
        return invoke_async

    def invoke(job: Job) -> Any:
        return to_output(fn(**analysis.bind(job)))

    invoke.__name__ = invoke.__qualname__ = getattr(fn, "__name__", "handler")
    return invoke

