"""Your function as a file that stands on its own: the helpers and names it uses, and its imports (chapter 02).

``check`` keeps a function that passes, so that chapter 05 can run it in a kernel of its own. A function
written in a notebook uses what that notebook had at hand: helpers of yours, constants, modules and
functions imported in a cell. ``gather`` follows every global name the function reads (and each helper of
yours reads, in turn) and writes each as what rebuilds it in a fresh namespace:

- a module: ``import json``; a function or class that lives in a module: ``from harness import user``;
- a function of yours (one written where the function was, the same globals, or loaded from a kept
  file): its source;
- a plain value (None, a bool, int, float or str, and tuples, lists, sets, frozensets and dicts of them):
  ``NAME = <its repr>``, when that repr reads back equal; and so is a value of a type that lives in a
  module (a Path, a Counter, a CompactionConfig), its type imported, when its repr reads back equal;
- anything else made in the notebook (a history, a config, a Path, a lambda) cannot be written to a file:
  ``gather`` says which name it is and what, and the function is not kept.

The names a function reads come from its bytecode (``LOAD_GLOBAL`` and ``LOAD_NAME``, nested functions and
comprehensions included) and from the default values, annotations and decorators of its ``def`` (those are
evaluated where it is defined); an attribute's name is never taken for a global. ``gather`` also returns
every object the function reads, so ``check`` can tell a call of the harness's own version of the step.
"""
from __future__ import annotations

import ast
import builtins
import dis
import inspect
import sys
import textwrap
import types
from dataclasses import dataclass, field
from typing import Any, Callable, Collection

PLAIN_KINDS = (type(None), bool, int, float, str)
CONTAINERS = (tuple, list, set, frozenset, dict)
KEPT = "__kept_from__"  # set in the namespace a kept file is loaded into: its functions are yours too
MOST_CHARACTERS = 20_000  # a value whose repr is longer is data, not a constant: pass it as an argument


@dataclass
class Gathered:
    """What keeps a function: the file's text, what stops it being kept (empty: nothing), what it reads."""
    source: str = ""
    problems: list[str] = field(default_factory=list)
    reads: list[Any] = field(default_factory=list)


def gather(function: Callable[..., Any], name: str, given: Collection[str] = ()) -> Gathered:
    """The file that defines ``function`` under ``name`` with everything it reads (see the module docstring),
    but the names ``given``, which the place it runs already defines."""
    found = Gathered()
    imports: dict[str, str] = {}
    values: dict[str, str] = {}
    helpers: dict[str, str] = {}  # name -> source, each after the helpers it reads
    done: dict[str, Any] = {}

    def take(global_name: str, value: Any, home: dict[str, Any]) -> None:
        if global_name in given:
            return
        if global_name in done:
            if done[global_name] is not value:
                found.problems.append(f"`{global_name}` names two different things in the functions it uses")
            return
        done[global_name] = value
        found.reads.append(value)
        if isinstance(value, types.ModuleType):
            imports[global_name] = (f"import {value.__name__}" if value.__name__ == global_name
                                    else f"import {value.__name__} as {global_name}")
        elif (isinstance(value, types.FunctionType) and value.__name__ != "<lambda>"
              and (value.__globals__ is home or KEPT in value.__globals__)):
            write(value, global_name)
        elif _plain(value):
            values[global_name] = f"{global_name} = {value!r}"
        elif (where := _importable(value)) is not None:
            imports[global_name] = f"from {where[0]} import {where[1]}" + (
                f" as {global_name}" if where[1] != global_name else "")
        elif (kind := _importable(type(value))) is not None and _reads_back(value, kind[1]):
            imports[kind[1]] = f"from {kind[0]} import {kind[1]}"
            values[global_name] = f"{global_name} = {value!r}"
        else:
            found.problems.append(f"it uses `{global_name}`, {_described(value)} made in the notebook, which "
                                  "cannot be written to a file (pass it as an argument, or make it a constant)")

    def write(helper: types.FunctionType, as_name: str) -> None:
        if helper.__code__.co_freevars:
            found.problems.append(f"`{helper.__name__}` reads {', '.join(helper.__code__.co_freevars)} of the "
                                  "function it is written in: write it at the top level of a cell")
            return
        try:
            source = textwrap.dedent(inspect.getsource(helper))
            tree = ast.parse(source)
        except (OSError, TypeError, SyntaxError):
            found.problems.append(f"the source of `{helper.__name__}` cannot be read back on its own")
            return
        definition = tree.body[0] if tree.body else None
        if not isinstance(definition, ast.FunctionDef | ast.AsyncFunctionDef) or definition.name != helper.__name__:
            found.problems.append(f"`{helper.__name__}` is not written with def (a lambda cannot be kept)")
            return
        for global_name in sorted(_names_read(helper.__code__) | _names_at_definition(definition)):
            if global_name in helper.__globals__:
                take(global_name, helper.__globals__[global_name], helper.__globals__)
            # else: a builtin, or a name no case reached (it would raise there too)
        alias = f"\n{as_name} = {helper.__name__}\n" if as_name != helper.__name__ else ""
        helpers[as_name] = source.rstrip("\n") + "\n" + alias

    done[name] = function
    found.reads.append(function)
    if not isinstance(function, types.FunctionType):
        found.problems.append("it is not a function written with def")
        return found
    write(function, name)
    if found.problems:
        return found
    head = [*sorted(set(imports.values())), *(values[n] for n in sorted(values))]
    found.source = "\n".join(head) + ("\n\n\n" if head else "") + "\n\n".join(helpers.values())
    return found


def _names_read(code: types.CodeType) -> set[str]:
    """The global names a code object (and those nested in it) loads."""
    names = {ins.argval for ins in dis.get_instructions(code) if ins.opname in ("LOAD_GLOBAL", "LOAD_NAME")}
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            names |= _names_read(constant)
    return {name for name in names if not hasattr(builtins, name)}


def _names_at_definition(definition: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """The names the ``def`` line itself evaluates: decorators, default values, annotations."""
    arguments = definition.args
    parts: list[ast.AST | None] = [*definition.decorator_list, *arguments.defaults, *arguments.kw_defaults,
                                   definition.returns]
    parts += [a.annotation for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs,
                                     arguments.vararg, arguments.kwarg) if a is not None]
    return {node.id for part in parts if part is not None for node in ast.walk(part)
            if isinstance(node, ast.Name) and not hasattr(builtins, node.id)}


def _plain(value: Any, depth: int = 0) -> bool:
    """Whether ``value`` is written back exactly by its repr (plain values and containers of them)."""
    if depth > 20:
        return False
    if type(value) in PLAIN_KINDS:
        if type(value) is float and (value != value or value in (float("inf"), float("-inf"))):
            return False  # nan and inf have no literal
        return depth > 0 or len(repr(value)) <= MOST_CHARACTERS
    if type(value) not in CONTAINERS:
        return False
    items = [*value.keys(), *value.values()] if type(value) is dict else list(value)
    return all(_plain(item, depth + 1) for item in items) and (depth > 0 or len(repr(value)) <= MOST_CHARACTERS)


def _reads_back(value: Any, kind: str) -> bool:
    """Whether ``value``'s repr, read with its type at hand, gives it back (a Path, a Counter, a config)."""
    try:
        text = repr(value)
        return len(text) <= MOST_CHARACTERS and eval(text, {kind: type(value)}) == value  # noqa: S307
    except Exception:  # a repr that is not Python, or that names what is not at hand
        return False


def _importable(value: Any) -> tuple[str, str] | None:
    """(module, name) from which ``value`` itself can be imported, or None."""
    module_name, name = getattr(value, "__module__", None), getattr(value, "__qualname__", None)
    if not isinstance(module_name, str) or not isinstance(name, str) or "." in name or module_name == "__main__":
        return None
    module = sys.modules.get(module_name)
    return (module_name, name) if module is not None and getattr(module, name, None) is value else None


def _described(value: Any) -> str:
    kind = type(value).__name__
    if isinstance(value, types.FunctionType):
        return "a lambda" if value.__name__ == "<lambda>" else f"the function {value.__name__}"
    return f"{'an' if kind[:1].lower() in 'aeiou' else 'a'} {kind}"
