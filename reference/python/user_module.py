"""A user's model from its Python source: `package.module:factory` or
`path/to/file.py:factory`, called with keyword arguments.  reference.export
builds the module it exports this way, and records the same two facts in the
suite it writes ("python": {"factory", "kwargs"}), so that the compiled
implementation can train the module itself where the C++ harness trains the
TorchScript file made from it (torch.compile cannot compile a file)."""

from __future__ import annotations

import importlib
import importlib.util
import re
import sys
from pathlib import Path

import torch


class ModuleError(ValueError):
    """The factory cannot be imported, called, or gives no nn.Module."""


def resolve(factory: str) -> str:
    """The factory as a suite records it: a file path absolute, so that the
    suite can be run from any folder."""
    module_name, sep, attr = factory.rpartition(":")
    if sep and module_name.endswith(".py"):
        return f"{Path(module_name).resolve()}:{attr}"
    return factory


def factory_of(spec: str):
    module_name, sep, attr = spec.rpartition(":")
    if not sep or not module_name or not attr:
        raise ModuleError(f"{spec!r}: expected package.module:factory or path/to/file.py:factory")
    try:
        obj = _import(module_name)
        for part in attr.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError) as e:
        raise ModuleError(f"{spec}: {e}") from None
    except Exception as e:  # noqa: BLE001 - the user's file fails as it is imported
        raise ModuleError(f"{spec}: importing {module_name} fails: {type(e).__name__}: {e}") from None
    if not callable(obj):
        raise ModuleError(f"{spec}: not callable")
    return obj


def make(spec: str, kwargs: dict) -> torch.nn.Module:
    """factory(**kwargs), which must be an nn.Module."""
    factory = factory_of(spec)
    if not isinstance(kwargs, dict):
        raise ModuleError(f"{spec}: keyword arguments must be a JSON object, got {kwargs!r}")
    try:
        module = factory(**kwargs)
    except Exception as e:  # noqa: BLE001 - the user's constructor refuses its arguments
        raise ModuleError(f"{spec}(**{kwargs}) fails: {type(e).__name__}: {e}") from None
    if not isinstance(module, torch.nn.Module):
        raise ModuleError(f"{spec} returned {type(module).__name__}, not a torch.nn.Module")
    return module


def _import(module_name: str):
    """The module; a file, or a module whose name is not a dotted identifier
    (`my model`), under a name that is one: TorchScript qualifies a class by
    its module's name, and a file whose names hold a space fails to load."""
    if module_name.endswith(".py"):
        path = Path(module_name)
        if not path.is_file():
            raise ImportError(f"no such file: {path}")
        sys.path.insert(0, str(path.parent.resolve()))  # its own imports, as `python path/to/file.py` has them
        return _import_file(path, _identifier(path.stem))
    parts = module_name.split(".")
    if all(part.isidentifier() for part in parts):
        return importlib.import_module(module_name)
    spec = importlib.util.find_spec(module_name)
    if spec is None or not spec.origin or not spec.origin.endswith(".py"):
        raise ImportError(f"No module named {module_name!r}")
    return _import_file(Path(spec.origin), ".".join(_identifier(p) for p in parts))


def _identifier(text: str) -> str:
    name = re.sub(r"\W", "_", text)
    return name if name.isidentifier() else f"_{name}"


def _import_file(path: Path, name: str):
    taken = sys.modules.get(name)
    while taken is not None and getattr(taken, "__file__", None) != str(path.resolve()):
        name += "_"
        taken = sys.modules.get(name)
    if taken is not None:
        return taken
    spec = importlib.util.spec_from_file_location(name, path.resolve())
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # torch.jit.script reads the source through it
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module
