#!/usr/bin/env python3
"""Writes python/loom/_loom.pyi, the type stubs of the extension loom._loom, from the signatures
pybind11 puts in its docstrings (tests/python/test_pythonic.py checks that the file is current):
    PYTHONPATH=build/python /usr/bin/python3 scripts/python_stubs.py [OUT]"""
import inspect
import os
import re
import sys

import loom  # noqa: F401 (loads torch first)
from loom import _loom

TYPES = [
    (r"\bat::Tensor\b", "torch.Tensor"),
    (r"\bloom\._loom\.", ""),
    (r"\bos\.PathLike\b", "os.PathLike[str] | str"),
    (r"\bnumpy\.ndarray\b", "typing.Any"),
    (r"\bc10::Device\b", "typing.Any"),
    (r"\b(List|Dict|Tuple|Set)\[", lambda m: m.group(1).lower() + "["),
    (r"\b(Optional|Union|Callable|Iterator|Sequence)\[", r"typing.\1["),
]


def clean(signature):
    for pattern, replacement in TYPES:
        signature = re.sub(pattern, replacement, signature)
    return re.sub(r" = <[^>]*>", " = ...", signature)  # defaults Python cannot spell


def signatures(obj):
    """pybind11's signature lines of a function (several when it is overloaded)."""
    lines = (obj.__doc__ or "").splitlines()
    name = obj.__name__
    found = [
        clean(line.split(". ", 1)[-1] if re.match(r"^\d+\. ", line) else line)
        for line in lines
        if re.match(rf"^(\d+\. )?{re.escape(name)}\(", line)
    ]
    return found or [f"{name}(*args, **kwargs) -> typing.Any"]


def summary(obj):
    """The first line of a docstring's text after the signatures."""
    text = [
        line
        for line in (obj.__doc__ or "").splitlines()
        if line.strip() and not re.match(r"^(\d+\. )?\w+\(", line) and line != "Overloaded function."
    ]
    return text[0].strip() if text else ""


def function_stub(obj, indent=""):
    out = []
    sigs = signatures(obj)
    for sig in sigs:
        if len(sigs) > 1:
            out.append(f"{indent}@typing.overload")
        doc = summary(obj)
        out.append(f"{indent}def {sig}:{f' ...  # {doc}' if doc else ' ...'}")
    return out


def class_stub(cls, indent=""):
    bases = [b.__name__ for b in cls.__bases__ if b.__module__ in ("loom._loom", "loom") and b.__name__ != "object"]
    if issubclass(cls, BaseException):
        bases = [b.__name__ for b in cls.__bases__]
    out = [f"{indent}class {cls.__name__}({', '.join(bases)}):" if bases else f"{indent}class {cls.__name__}:"]
    if cls.__doc__ and not cls.__doc__.startswith(cls.__name__ + "("):
        out.append(f'{indent}    """{cls.__doc__.strip().splitlines()[0]}"""')
    body = []
    for name, member in sorted(vars(cls).items()):
        if name.startswith("_") and name not in ("__init__", "__len__", "__iter__", "__repr__"):
            continue
        if isinstance(member, property):
            returns = re.search(r"-> (.*)$", (member.fget.__doc__ or "").splitlines()[0] if member.fget.__doc__ else "")
            body.append(f"{indent}    @property")
            body.append(f"{indent}    def {name}(self) -> {clean(returns.group(1)) if returns else 'typing.Any'}: ...")
        elif callable(member) and hasattr(member, "__doc__") and type(member).__name__ == "instancemethod":
            body += function_stub(member, indent + "    ")
        elif type(member).__name__ == "builtin_function_or_method":
            body += [f"{indent}    @staticmethod"] + function_stub(member, indent + "    ")
    return out + (body or [f"{indent}    ..."])


def module_stub(module, lines, prefix=""):
    for name, member in sorted(vars(module).items()):
        if name.startswith("_"):
            continue
        if inspect.isclass(member):
            lines += class_stub(member) + [""]
        elif type(member).__name__ == "builtin_function_or_method":
            lines += function_stub(member) + [""]


def main(out):
    lines = [
        '"""Type stubs of loom._loom, written by scripts/python_stubs.py from pybind11\'s signatures."""',
        "import os",
        "import typing",
        "",
        "import torch",
        "",
        "__version__: str",
        "",
    ]
    module_stub(_loom, lines)
    for name, sub in sorted(vars(_loom).items()):
        if inspect.ismodule(sub):
            lines += [f"class {name}:  # submodule loom.{name}", f'    """{(sub.__doc__ or name).splitlines()[0]}"""']
            inner = []
            for fname, member in sorted(vars(sub).items()):
                if fname.startswith("_"):
                    continue
                if inspect.isclass(member):
                    inner += class_stub(member, "    ")
                elif type(member).__name__ == "builtin_function_or_method":
                    inner += ["    @staticmethod"] + function_stub(member, "    ")
            lines += (inner or ["    ..."]) + [""]
    text = "\n".join(lines).rstrip() + "\n"
    with open(out, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main(
        sys.argv[1]
        if len(sys.argv) > 1
        else os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python", "loom", "_loom.pyi")
    )
