"""The robot install path: the package built by colcon in a fresh workspace, used from that install alone."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from vidmem_ros.command.launcher import stop_processes

ROOT = Path(__file__).resolve().parent.parent
VENV = Path(sys.prefix)
# What a source checkout holds besides the package: not copied into the workspace.
LOCAL_ONLY = shutil.ignore_patterns(".venv", ".git", "build", "install", "log", "data", "__pycache__", "*.egg-info")


COLCON = VENV / "bin" / "colcon"


def colcon(workspace: Path, *args: str, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    """colcon in ``workspace``, against this venv's ROS 2 (the PyPI wheels)."""
    env = {**os.environ, "AMENT_PREFIX_PATH": str(VENV), "PATH": f"{VENV / 'bin'}:{os.environ['PATH']}"}
    return subprocess.run([str(COLCON), *args], cwd=workspace, env=env, capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def install(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not COLCON.exists():
        pytest.fail(f"{COLCON} is missing: make setup installs colcon-common-extensions (requirements/dev.txt)")
    workspace = tmp_path_factory.mktemp("ws")
    shutil.copytree(ROOT, workspace / "src" / "vidmem_ros", ignore=LOCAL_ONLY)
    args = [f"-DPython3_EXECUTABLE={sys.executable}", f"-DCMAKE_PREFIX_PATH={VENV}", "-DBUILD_TESTING=ON"]
    built = colcon(workspace, "build", "--event-handlers", "console_cohesion+", "--cmake-args", *args)
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


def test_colcon_test_runs_the_packages_tests_and_reports_them(install: Path) -> None:
    workspace = install.parent
    tested = colcon(workspace, "test", "--event-handlers", "console_cohesion+")
    assert tested.returncode == 0, tested.stdout[-4000:] + tested.stderr[-2000:]
    report = colcon(workspace, "test-result", "--all", timeout=120)
    assert report.returncode == 0, report.stdout[-4000:]  # non-zero on any failure or error
    summary = re.search(r"Summary: (\d+) tests, (\d+) errors, (\d+) failures, (\d+) skipped", report.stdout)
    assert summary, report.stdout[-2000:]
    tests, errors, failures, _ = map(int, summary.groups())
    assert tests >= 100 and errors == failures == 0, report.stdout[-2000:]
    results = workspace / "build" / "vidmem_ros" / "test_results" / "vidmem_ros"
    suites = {p.name.split(".")[0] for p in results.glob("*.xml")}
    assert {"test_config", "test_store", "test_answerer"} <= suites, suites


SIM_T0 = 5_000.0  # sim time: far from the wall clock, so a stamp tells which clock a node used
NAMESPACE = "/robot7"


@pytest.mark.ros
def test_installed_nodes_answer_over_dds_with_a_params_file_sim_time_and_best_effort_odometry(
    install: Path, tmp_path: Path, photos: dict[str, np.ndarray]
) -> None:
    """Both installed executables, run as `ros2 run` runs them, in a namespace, with remapped topics, the shipped
    ROS parameter file and use_sim_time; a /clock, camera frames and best-effort odometry in; an answer with a
    pose out of the query service."""
    import rclpy

    from vidmem_ros.ros.client import MemoryClient

    share = install / "vidmem_ros" / "share" / "vidmem_ros"
    args = [
        "--ros-args",
        "--params-file", str(share / "config" / "ros" / "cpu.params.yaml"),
        "-p", "use_sim_time:=true",
        "-p", f"store.path:={tmp_path / 'memory.db'}",
        "-r", f"__ns:={NAMESPACE}",
        "-r", "image:=/front_cam/image_color",
        "-r", "odom:=/wheel/odom",
    ]  # fmt: skip
    env = {**os.environ, "PATH": f"{VENV / 'bin'}:{os.environ['PATH']}"}  # the shebang's python3: this venv's
    procs = []
    for node in ("ingest_node", "query_node"):
        command = (
            f"source {install / 'local_setup.bash'} && exec {install / 'vidmem_ros' / 'lib' / 'vidmem_ros' / node}"
        )
        log = open(tmp_path / f"{node}.log", "wb")  # noqa: SIM115 - the child keeps its own copy
        procs.append(subprocess.Popen(["bash", "-c", f"{command} {' '.join(args)}"], env=env, stdout=log, stderr=log))
        log.close()
    rclpy.init()
    node = rclpy.create_node("vidmem_test_installed")
    try:
        _drive_and_ask(node, MemoryClient(node, NAMESPACE), photos, procs, tmp_path)
    finally:
        node.destroy_node()
        rclpy.shutdown()
        stop_processes(procs)


def _drive_and_ask(node, client, photos, procs, logs: Path) -> None:  # type: ignore[no-untyped-def]
    import rclpy
    from nav_msgs.msg import Odometry
    from rclpy.qos import qos_profile_sensor_data
    from rosgraph_msgs.msg import Clock
    from sensor_msgs.msg import Image

    from vidmem_ros.ros.convert import to_time

    clock = node.create_publisher(Clock, "/clock", 10)
    camera = node.create_publisher(Image, "/front_cam/image_color", 10)
    odom = node.create_publisher(Odometry, "/wheel/odom", qos_profile_sensor_data)  # best effort, as drivers do
    now = [SIM_T0]

    def tick(seconds: float = 0.2) -> None:  # sim time runs only while /clock is published
        now[0] += seconds
        clock.publish(Clock(clock=to_time(now[0])))
        rclpy.spin_once(node, timeout_sec=0.1)

    deadline = time.monotonic() + 240
    while not (camera.get_subscription_count() and odom.get_subscription_count() and client.wait_for_service(0.1)):
        assert all(p.poll() is None for p in procs), _logs(logs)
        assert time.monotonic() < deadline, "the installed nodes did not connect\n" + _logs(logs)
        tick()
    for i, name in enumerate(("coffee", "chelsea", "astronaut")):
        x = 2.0 * i + 1.0
        for dt in (-0.2, 0.0, 0.2):  # poses on both sides of the frame's stamp
            odom.publish(_odometry(now[0] + 1.0 + dt, x))
        tick(1.0)
        camera.publish(_image(photos[name], now[0]))
        for _ in range(5):
            tick(0.1)
        odom.publish(_odometry(now[0] + 0.3, x))
    stats = None
    while time.monotonic() < deadline and not (stats and stats.frames_kept >= 3 and stats.queue_depth == 0):
        tick()
        stats = client.stats()
    assert stats is not None and stats.frames_kept >= 3, f"{stats}\n{_logs(logs)}"
    stamp = stats.header.stamp.sec + stats.header.stamp.nanosec * 1e-9
    assert SIM_T0 < stamp <= now[0] + 1.0, f"memory_stats stamped {stamp}: not sim time"
    cat = client.ask("Where did you see the cat?", timeout_s=120.0)
    assert cat.has_answer_pose, cat.answer
    assert cat.answer_pose.pose.position.x == pytest.approx(3.0, abs=0.05) and cat.answer_pose.header.frame_id == "odom"


def _odometry(stamp: float, x: float):  # type: ignore[no-untyped-def]
    from nav_msgs.msg import Odometry

    from vidmem_ros.ros.convert import to_time

    msg = Odometry()
    msg.header.stamp, msg.header.frame_id, msg.child_frame_id = to_time(stamp), "odom", "base_link"
    msg.pose.pose.position.x, msg.pose.pose.orientation.w = x, 1.0
    return msg


def _image(rgb: np.ndarray, stamp: float):  # type: ignore[no-untyped-def]
    from sensor_msgs.msg import Image

    from vidmem_ros.ros.convert import to_time

    msg = Image(height=rgb.shape[0], width=rgb.shape[1], encoding="rgb8", step=rgb.shape[1] * 3)
    msg.header.stamp, msg.header.frame_id = to_time(stamp), "camera"
    msg.data = rgb.tobytes()
    return msg


def _logs(logs: Path) -> str:
    return "\n".join(f"--- {p.name}\n{p.read_text(errors='replace')[-3000:]}" for p in sorted(logs.glob("*.log")))
