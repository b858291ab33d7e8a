"""package.xml names every ROS package and system Python library the shipped code imports, so rosdep can install
them on a robot."""

from __future__ import annotations

import ast
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Python libraries with a rosdep key (the rest are pip-only, listed in requirements/ and the comment in package.xml).
ROSDEP_KEYS = {
    "numpy": "python3-numpy",
    "cv2": "python3-opencv",
    "yaml": "python3-yaml",
    "scipy": "python3-scipy",
    "skimage": "python3-skimage",
}


def _imported_modules() -> set[str]:
    found: set[str] = set()
    for path in (ROOT / "vidmem_ros").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                found.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                found.add(node.module.split(".")[0])
    return found


def _is_ros_package(module: str) -> bool:
    return module.endswith(("_msgs", "_interfaces")) or module in ("rclpy", "tf2_ros", "ament_index_python")


def test_every_ros_package_and_system_library_imported_is_a_dependency() -> None:
    tree = ET.parse(ROOT / "package.xml")
    declared = {e.text for tag in ("depend", "exec_depend") for e in tree.getroot().iter(tag)}
    imported = _imported_modules()
    ros = {m for m in imported if _is_ros_package(m) and m != "vidmem_ros"}
    assert {"rclpy", "tf2_ros", "rcl_interfaces", "rosgraph_msgs"} <= ros
    assert ros <= declared, sorted(ros - declared)
    keys = {ROSDEP_KEYS[m] for m in imported if m in ROSDEP_KEYS}
    assert keys <= declared, sorted(keys - declared)
