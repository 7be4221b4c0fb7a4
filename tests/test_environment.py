"""Packaging stays consistent: environment.yml, pyproject.toml and constraints.txt."""

import re
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

REPO_ROOT = Path(__file__).resolve().parent.parent

IGNORED = {"pip", "python"}


def norm(spec: str) -> str:
    """'Foo_Bar>=1,<2' -> 'foo-bar' (conda '=' pins and pip specifiers stripped)."""
    name = re.split(r"[\s<>=!~;\[]", spec.strip(), maxsplit=1)[0]
    return canonicalize_name(name)


def pyproject_deps() -> dict[str, Requirement]:
    data = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())
    project = data["project"]
    specs = list(project["dependencies"])
    for extra in project.get("optional-dependencies", {}).values():
        specs += extra
    return {canonicalize_name(Requirement(s).name): Requirement(s) for s in specs}


def environment_yml_specs() -> dict[str, str]:
    """Each package environment.yml names (conda and pip parts), with the spec it gives: 'name==1.2' -> '==1.2'.

    A tiny reader for the one file we control, so the tests need no YAML library:
    every '- item' line after 'dependencies:' is a package, '- pip:' opens the pip part.
    """
    specs, in_deps = {}, False
    for raw in (REPO_ROOT / "environment.yml").read_text().splitlines():
        line = raw.split("#", 1)[0].rstrip()
        if not line:
            continue
        if not raw.startswith((" ", "-")):
            in_deps = line.startswith("dependencies:")
            continue
        item = line.strip()
        if not in_deps or not item.startswith("- "):
            continue
        item = item[2:].strip()
        if item == "pip:" or item.startswith(("-e ", "-c ", "--")):
            continue
        name = norm(item)
        if name not in IGNORED:
            specs[name] = item[len(re.split(r"[\s<>=!~;\[]", item, maxsplit=1)[0]):].strip()
    return specs


def environment_yml_deps() -> set[str]:
    """Package names from environment.yml's dependencies (conda and pip parts)."""
    return set(environment_yml_specs())


def constraints() -> dict[str, str]:
    pins = {}
    for line in (REPO_ROOT / "constraints.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, sep, version = line.partition("==")
            assert sep, f"constraints.txt line is not an exact pin: {line!r}"
            pins[canonicalize_name(name)] = version.strip()
    return pins


def test_environment_yml_matches_pyproject():
    in_pyproject = set(pyproject_deps())
    in_env = environment_yml_deps()
    assert not in_pyproject - in_env, f"missing from environment.yml: {sorted(in_pyproject - in_env)}"
    assert not in_env - in_pyproject, f"not in pyproject.toml: {sorted(in_env - in_pyproject)}"


def test_every_dependency_is_pinned_in_constraints():
    pins = constraints()
    for name, req in sorted(pyproject_deps().items()):
        assert name in pins, f"{name} is not pinned in constraints.txt (run: make lock)"
        assert req.specifier.contains(pins[name], prereleases=True), (
            f"constraints.txt pins {name}=={pins[name]}, outside pyproject's {req} (run: make lock)"
        )


def test_environment_yml_pins_what_constraints_pins():
    """A conda user gets the versions the stored outputs were made with, and reads them off constraints.txt too."""
    pins = constraints()
    for name, spec in sorted(environment_yml_specs().items()):
        assert spec == f"=={pins[name]}", f"environment.yml asks for {name}{spec}; constraints.txt pins =={pins[name]}"
    text = (REPO_ROOT / "environment.yml").read_text()
    assert "- -c constraints.txt" in text and "- python=3.11" in text
