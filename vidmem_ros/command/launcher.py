"""Command lines for the nodes, shared by ``vidmem up``, the demo and the tests."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from vidmem_ros.config import CONFIG_DIR, PARENT_ENV

FASTDDS_PROFILE = CONFIG_DIR / "fastdds.xml"  # in the checkout, or share/vidmem_ros/config of an install
NODE_MODULES = {"ingest": "vidmem_ros.ros.ingest_node", "query": "vidmem_ros.ros.query_node"}


@dataclass
class NodeOptions:
    store: str
    config_file: str = ""
    profile: str = "cpu"
    camera: str = "/camera/image_raw"
    transport: str = ""  # raw, compressed or both (ingest.image_transport); empty keeps the node's setting
    odom: str = "/odom"
    pose: str = ""  # remaps for the other pose sources and audio; empty keeps the node's own name
    pose_with_covariance: str = ""
    audio: str = ""
    namespace: str = ""
    params: Mapping[str, Any] = field(default_factory=dict)


def deep_subscription(topic: str, depth: int = 200) -> dict[str, Any]:
    """The standard ``qos_overrides`` that give the ingest node's subscription to ``topic`` a deep queue: a replay
    for evaluation can outrun the node's callbacks for a moment, and none of its messages may be lost then.  The
    reliability stays best effort, so it matches whatever QoS the bag recorded."""
    return {f"qos_overrides.{topic}.subscription.depth": depth}


def ros_args(options: NodeOptions) -> list[str]:
    args = ["--ros-args", "-p", f"store.path:={options.store}", "-p", f"profile:={options.profile}"]
    if options.config_file:
        args += ["-p", f"config_file:={options.config_file}"]
    for name, value in options.params.items():
        args += ["-p", f"{name}:={_param_text(value)}"]
    if options.transport:
        args += ["-p", f"ingest.image_transport:={options.transport}"]
    args += [
        "-r",
        f"image:={options.camera}",
        "-r",
        f"image/compressed:={options.camera}/compressed",
        "-r",
        f"odom:={options.odom}",
    ]
    for name in ("pose", "pose_with_covariance", "audio"):
        if getattr(options, name):
            args += ["-r", f"{name}:={getattr(options, name)}"]
    if options.namespace:
        args += ["-r", f"__ns:={options.namespace}"]
    return args


def node_command(which: str, options: NodeOptions) -> list[str]:
    return [sys.executable, "-m", NODE_MODULES[which], *ros_args(options)]


def start_node(
    which: str, options: NodeOptions, env: Mapping[str, str] | None = None, log_path: str | None = None
) -> subprocess.Popen[bytes]:
    """Start a node as its own process, its output going to ``log_path`` (or nowhere).  The node stops when
    this process is gone, however it ends (``runtime.stop_with_parent``)."""
    log = open(log_path, "wb") if log_path else None  # noqa: SIM115 - closed below; the child keeps its own copy
    try:
        return subprocess.Popen(
            node_command(which, options),
            env={**(env or os.environ), PARENT_ENV: str(os.getpid())},
            stdout=log or subprocess.DEVNULL,
            stderr=subprocess.STDOUT,
        )
    finally:
        if log:
            log.close()


def stop_processes(processes: list[subprocess.Popen[bytes]], grace_s: float = 10.0) -> None:
    """Ask nodes to shut down (SIGINT, as Ctrl-C would); kill any still running after ``grace_s``."""
    for p in processes:
        if p.poll() is None:
            p.send_signal(signal.SIGINT)
    deadline = time.monotonic() + grace_s
    for p in processes:
        try:
            p.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def use_package_dds_profile(env: dict[str, str]) -> dict[str, str]:
    """Point Fast DDS at the package's profile (large shared-memory segments) unless one is already chosen."""
    if FASTDDS_PROFILE.is_file():
        env.setdefault("FASTRTPS_DEFAULT_PROFILES_FILE", str(FASTDDS_PROFILE))
    return env


def loopback_env(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """Environment that keeps DDS on this machine, with its own domain and log directory unless given."""
    env = dict(base if base is not None else os.environ)
    env["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"
    env.setdefault("ROS_DOMAIN_ID", str(random.randint(1, 101)))
    env.setdefault("ROS_LOG_DIR", tempfile.mkdtemp(prefix="vidmem-ros-log-"))
    return use_package_dds_profile(env)


def _param_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
