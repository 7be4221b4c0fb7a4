"""Print the installed version of every dependency pyproject.toml names, beside the one constraints.txt pins
(make test-latest)."""
from __future__ import annotations

import tomllib
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent


def named() -> list[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    specs = list(project["dependencies"]) + [s for extra in project["optional-dependencies"].values() for s in extra]
    return sorted({canonicalize_name(Requirement(s).name) for s in specs})


def pinned() -> dict[str, str]:
    pins = {}
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        name, sep, pin = line.split("#", 1)[0].strip().partition("==")
        if sep:
            pins[canonicalize_name(name)] = pin
    return pins


def main() -> None:
    pins = pinned()
    print(f"{'package':<20} {'installed':<12} pinned")
    for name in named():
        try:
            installed = version(name)
        except PackageNotFoundError:
            installed = "missing"
        pin = pins.get(name, "-")
        print(f"{name:<20} {installed:<12} {pin}{'' if installed == pin else '   <- differs'}")


if __name__ == "__main__":
    main()
