"""The robot install path: the package built by colcon in a fresh workspace, used from that install alone."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
VENV = Path(sys.prefix)
# What a source checkout holds besides the package: not copied into the workspace.
LOCAL_ONLY = shutil.ignore_patterns(".venv", ".git", "build", "install", "log", "data", "__pycache__", "*.egg-info")


@pytest.fixture(scope="module")
def install(tmp_path_factory: pytest.TempPathFactory) -> Path:
    colcon = VENV / "bin" / "colcon"
    if not colcon.exists():
        pytest.fail(f"{colcon} is missing: make setup installs colcon-common-extensions (requirements/dev.txt)")
    workspace = tmp_path_factory.mktemp("ws")
    shutil.copytree(ROOT, workspace / "src" / "vidmem_ros", ignore=LOCAL_ONLY)
    env = {**os.environ, "AMENT_PREFIX_PATH": str(VENV), "PATH": f"{VENV / 'bin'}:{os.environ['PATH']}"}
    args = [f"-DPython3_EXECUTABLE={sys.executable}", f"-DCMAKE_PREFIX_PATH={VENV}", "-DBUILD_TESTING=OFF"]
    built = subprocess.run(
        [str(colcon), "build", "--event-handlers", "console_cohesion+", "--cmake-args", *args],
        cwd=workspace,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert built.returncode == 0, built.stdout[-4000:] + built.stderr[-2000:]
    return workspace / "install"


def site_packages(install: Path) -> Path:
    return install / "vidmem_ros" / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"


def test_colcon_installs_interfaces_python_nodes_launch_and_config(install: Path) -> None:
    prefix = install / "vidmem_ros"
    for node in ("ingest_node", "query_node"):
        assert os.access(prefix / "lib" / "vidmem_ros" / node, os.X_OK), node
    share = prefix / "share" / "vidmem_ros"
    for shipped in ("package.xml", "launch/vidmem.launch.py", "config/cpu.yaml", "msg/Evidence.msg", "srv/Query.srv"):
        assert (share / shipped).is_file(), shipped
    assert (prefix / "share" / "ament_index" / "resource_index" / "packages" / "vidmem_ros").is_file()
    package = site_packages(install) / "vidmem_ros"
    assert (package / "config.py").is_file() and (package / "srv" / "_query.py").is_file()


def test_the_installed_package_runs_from_the_install_alone(install: Path) -> None:
    """Sourcing the install's local_setup.bash is all a robot does: the package, its generated interfaces and its
    configuration profiles (from share/, not the source tree) come from there."""
    probe = (
        "import vidmem_ros, vidmem_ros.srv; from vidmem_ros import config; "
        "print(vidmem_ros.__file__); print(config.profile_path('cpu')); "
        "print(config.load_config().profile)"
    )
    script = f'source {install / "local_setup.bash"} && cd / && {sys.executable} -c "{probe}"'
    ran = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=120)
    assert ran.returncode == 0, ran.stderr[-3000:]
    module, profile, name = ran.stdout.split()
    assert Path(module).is_relative_to(site_packages(install))
    assert Path(profile) == install / "vidmem_ros" / "share" / "vidmem_ros" / "config" / "cpu.yaml"
    assert name == "cpu"
