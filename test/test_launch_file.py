"""The launch file, read rather than run (launch and launch_ros are not on PyPI): what it declares is used, and
what it names exists."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from vidmem_ros.config import PROFILES, flatten, load_config

ROOT = Path(__file__).resolve().parent.parent
LAUNCH = ROOT / "launch" / "vidmem.launch.py"


def _declared_arguments(tree: ast.Module) -> set[str]:
    args = next(
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "args" for t in node.targets)
    )
    assert isinstance(args, ast.Dict)
    return {key.value for key in args.keys if isinstance(key, ast.Constant)}


def _used_arguments(source: str) -> set[str]:
    return set(re.findall(r'cfg\["(\w+)"\]', source))


def test_every_declared_argument_reaches_a_node() -> None:
    source = LAUNCH.read_text()
    declared = _declared_arguments(ast.parse(source))
    assert {"params_file", "use_sim_time", "log_level", "namespace", "profile", "image_transport"} <= declared
    assert declared == _used_arguments(source)


def test_the_parameters_it_sets_are_settings_the_nodes_declare() -> None:
    tree = ast.parse(LAUNCH.read_text())
    names = {
        key.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Dict)
        for key in node.keys
        if isinstance(key, ast.Constant) and isinstance(key.value, str) and "." in key.value
    }
    settings = {name for name, _, _ in flatten(load_config())}
    assert names and names <= settings


def test_the_executables_and_parameter_files_it_names_are_installed() -> None:
    source = LAUNCH.read_text()
    cmake = (ROOT / "CMakeLists.txt").read_text()
    for executable in re.findall(r'\("(\w+_node)", "vidmem_\w+"\)', source):
        assert f"scripts/{executable}" in cmake and (ROOT / "scripts" / executable).is_file()
    assert '"config", "ros"' in source and "install(DIRECTORY launch config" in cmake
    for profile in PROFILES:  # the default params_file: config/ros/<profile>.params.yaml
        assert (ROOT / "config" / "ros" / f"{profile}.params.yaml").is_file()
