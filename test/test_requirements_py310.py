"""The pinned requirements install on Python 3.10 (ROS 2 Humble, JetPack 6) as well as on 3.11 and 3.12: pins that
publish no cp310 wheels carry python_version markers with a 3.10 alternative, and pip resolves the files of a ROS 2
install for each target against the package index, wheels only, so the 3.10 install is checked rather than guessed.

The resolution needs the package index (pip's configured one); without it the test fails and says so."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.tags import Tag, compatible_tags, cpython_tags
from packaging.utils import canonicalize_name, parse_wheel_filename

REQUIREMENTS = Path(__file__).resolve().parent.parent / "requirements"
PYTHONS = ("3.10", "3.11", "3.12")  # Humble and JetPack 6; this pip-path venv; Jazzy
# What an install on ROS 2 from apt runs (README; parser.txt as the Makefile adds it): these with -c constraints.txt,
# no-deps.txt with --no-deps.  ros-jazzy.txt is left out: there ROS 2 comes from apt, not from PyPI.  dev.txt is left out too: colcon-core needs EmPy, published
# as an sdist only, and colcon and pytest come from apt there; its pins are still checked offline below.
RESOLVED = ("base.txt", "perception.txt", "parser.txt", "fleet.txt")
NO_DEPS = "no-deps.txt"
# Pins published as sdists only (built on install).  With --python-version pip takes sdists only with --no-deps,
# so these are resolved on their own (the pinned version exists and its Requires-Python admits the target) and
# their dependencies join the wheels-only resolution.
SDIST_ONLY = {"llama-cpp-python", "face-recognition-models"}
# (Python, machine, glibc minor): Ubuntu 22.04 on x86_64 (Humble) and aarch64 (JetPack 6); Ubuntu 24.04 (Jazzy).
TARGETS = [("3.10", "x86_64", 35), ("3.10", "aarch64", 35), ("3.12", "x86_64", 39)]

# pip evaluates environment markers against the interpreter running it, not against --python-version (which only
# selects wheels and checks Requires-Python), so it runs with the target's marker environment patched in.  The
# report's "environment" shows that environment, which the test checks.
PIP_FOR_TARGET = """\
import json, sys
from pip._vendor.packaging import markers
environment = json.loads(sys.argv.pop(1))
markers.default_environment = lambda: dict(environment)
from pip._internal.cli.main import main
sys.exit(main(sys.argv[1:]))
"""
NETWORK_ERRORS = (
    "NewConnectionError",
    "NameResolutionError",
    "Max retries exceeded",
    "Temporary failure in name resolution",
    "Network is unreachable",
    "ConnectTimeout",
    "ProxyError",
)


def _lines(name: str) -> list[Requirement]:
    found = []
    for line in (REQUIREMENTS / name).read_text().splitlines():
        text = line.split("#", 1)[0].strip()
        if text:
            found.append(Requirement(text))
    return found


def _marker_environment(python: str, machine: str = "x86_64") -> dict[str, str]:
    full = {"3.10": "3.10.12", "3.11": "3.11.7", "3.12": "3.12.3"}[python]
    return {
        "implementation_name": "cpython",
        "implementation_version": full,
        "os_name": "posix",
        "platform_machine": machine,
        "platform_release": "",
        "platform_system": "Linux",
        "platform_version": "",
        "python_full_version": full,
        "platform_python_implementation": "CPython",
        "python_version": python,
        "sys_platform": "linux",
    }


def _applies(requirement: Requirement, environment: dict[str, str]) -> bool:
    return requirement.marker is None or requirement.marker.evaluate(environment)


def _pins(names: tuple[str, ...], environment: dict[str, str]) -> dict[str, str]:
    """Package -> version pinned with == for this environment, over the given files."""
    pins = {}
    for name in names:
        for requirement in _lines(name):
            if _applies(requirement, environment):
                (specifier,) = requirement.specifier
                assert specifier.operator == "==", f"{name}: {requirement} is not pinned exactly"
                pins[canonicalize_name(requirement.name)] = specifier.version
    return pins


def test_every_pin_has_exactly_one_version_for_each_python() -> None:
    files = sorted(path.name for path in REQUIREMENTS.glob("*.txt"))
    assert {*RESOLVED, NO_DEPS, "constraints.txt"} <= set(files)
    for name in files:
        lines: dict[str, list[Requirement]] = defaultdict(list)
        for requirement in _lines(name):
            lines[canonicalize_name(requirement.name)].append(requirement)
            if requirement.marker is not None:
                assert "python_version" in str(requirement.marker), f"{name}: {requirement}"
        for package, requirements in lines.items():
            for python in PYTHONS:
                applying = [str(r) for r in requirements if _applies(r, _marker_environment(python))]
                assert len(applying) == 1, f"{name}: {package} on Python {python}: {applying or 'no pin'}"
    # A package pinned in a requirement file and in constraints.txt gets the same version on every Python.
    for python in PYTHONS:
        environment = _marker_environment(python)
        constraints = _pins(("constraints.txt",), environment)
        for name in files:
            for package, version in _pins((name,), environment).items():
                assert constraints.get(package, version) == version, f"{name}: {package} on Python {python}"


def _platforms(machine: str, glibc_minor: int) -> list[str]:
    # pip takes --platform tags literally (only manylinux2014/2010 are widened), so every glibc the target has.
    return [f"manylinux_2_{minor}_{machine}" for minor in range(glibc_minor, 4, -1)] + [f"manylinux2014_{machine}"]


def _pip(python: str, machine: str, glibc_minor: int, report: Path, *args: str) -> dict:
    command = [sys.executable, "-c", PIP_FOR_TARGET, json.dumps(_marker_environment(python, machine))]
    command += ["install", "--dry-run", "--quiet", "--ignore-installed", "--report", str(report)]
    command += ["--python-version", python]
    for platform in _platforms(machine, glibc_minor):
        command += ["--platform", platform]
    result = subprocess.run([*command, *args], capture_output=True, text=True, timeout=540)
    output = result.stdout + result.stderr
    if result.returncode != 0 and any(error in output for error in NETWORK_ERRORS):
        where = ""
        if {name for _, name in socket.if_nameindex()} <= {"lo"}:
            where = (
                "this process has no network but loopback (scripts/run_isolated.sh, run as root, gives tests a "
                "private network namespace): run it without that, as .venv/bin/python -m pytest " + __file__ + "\n"
            )
        pytest.fail(f"the package index could not be reached (this test resolves against it)\n{where}{output[-3000:]}")
    assert result.returncode == 0, f"Python {python} {machine}: pip could not resolve the requirements:\n{output}"
    resolved = json.loads(report.read_text())
    assert resolved["environment"]["python_version"] == python  # markers were read for the target
    return resolved


def _installed(report: dict) -> dict[str, dict]:
    return {canonicalize_name(item["metadata"]["name"]): item for item in report["install"]}


@pytest.mark.network
@pytest.mark.parametrize(("python", "machine", "glibc_minor"), TARGETS, ids=lambda value: str(value))
def test_requirements_resolve_to_binary_wheels_for_the_target(
    python: str, machine: str, glibc_minor: int, tmp_path: Path
) -> None:
    environment = _marker_environment(python, machine)
    pins = _pins((*RESOLVED, NO_DEPS), environment)
    constraints = _pins(("constraints.txt",), environment)
    # Tags a Python of the target accepts, to check each chosen file by its name.
    version = tuple(int(part) for part in python.split("."))
    platforms = _platforms(machine, glibc_minor)
    accepted: set[Tag] = {*cpython_tags(version, platforms=platforms), *compatible_tags(version, platforms=platforms)}

    # Sdist-only pins: --no-deps, then their own dependencies join the wheels-only resolution below.
    sdists = [f"{package}=={pins.pop(package)}" for package in sorted(SDIST_ONLY)]
    # The first call to the index: one retry and a short timeout, so a missing index fails fast.
    quick = ["--retries", "1", "--timeout", "30"]
    report = _installed(_pip(python, machine, glibc_minor, tmp_path / "sdist.json", *quick, "--no-deps", *sdists))
    dependencies = []
    for requirement in sdists:
        item = report[canonicalize_name(Requirement(requirement).name)]
        assert requirement.endswith("==" + item["metadata"]["version"])
        assert item["download_info"]["url"].endswith((".tar.gz", ".zip"))
        for dependency in map(Requirement, item["metadata"].get("requires_dist", [])):
            if _applies(dependency, {**environment, "extra": ""}):
                dependencies.append(str(dependency))
    binary = tmp_path / "requirements"
    binary.mkdir()
    files = []
    for name in RESOLVED:
        text = [
            line
            for line in (REQUIREMENTS / name).read_text().splitlines()
            if not line.split("#", 1)[0].strip()
            or canonicalize_name(Requirement(line.split("#", 1)[0]).name) not in SDIST_ONLY
        ]
        (binary / name).write_text("\n".join(text) + "\n")
        files += ["-r", str(binary / name)]
    (binary / "sdist-dependencies.txt").write_text("\n".join(dependencies) + "\n")
    files += ["-r", str(binary / "sdist-dependencies.txt")]

    constrained = ["--only-binary=:all:", "-c", str(REQUIREMENTS / "constraints.txt"), *files]
    installed = _installed(_pip(python, machine, glibc_minor, tmp_path / "wheels.json", *constrained))
    no_deps = ["--only-binary=:all:", "--no-deps", "-r", str(REQUIREMENTS / NO_DEPS)]
    installed.update(_installed(_pip(python, machine, glibc_minor, tmp_path / "no-deps.json", *no_deps)))

    for package, item in installed.items():
        filename = item["download_info"]["url"].rsplit("/", 1)[-1]
        assert filename.endswith(".whl"), f"{package}: {filename} is not a wheel"
        assert parse_wheel_filename(filename)[3] & accepted, f"{package}: {filename} does not install on the target"
    numpy = installed["numpy"]["download_info"]["url"].rsplit("/", 1)[-1]
    assert any(tag.interpreter == "cp" + python.replace(".", "") for tag in parse_wheel_filename(numpy)[3]), numpy
    for package, pinned in pins.items():
        assert package in installed, f"{package} was not resolved"
        assert installed[package]["metadata"]["version"] == pinned, f"{package} on Python {python}"
    for package, pinned in constraints.items():
        if package in installed:
            assert installed[package]["metadata"]["version"] == pinned, f"{package} (constraints.txt) on {python}"
