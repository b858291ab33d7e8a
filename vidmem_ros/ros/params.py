"""Every setting of ``VidmemConfig`` as a declared ROS parameter with a description and range."""

from __future__ import annotations

import math
from typing import Any, get_args

from annotated_types import Ge, Gt, Le, Lt
from pydantic.fields import FieldInfo
from rcl_interfaces.msg import FloatingPointRange, IntegerRange, ParameterDescriptor, SetParametersResult
from rclpy.node import Node
from rclpy.parameter import Parameter

from vidmem_ros.config import VidmemConfig, flatten, load_config, profile_path, validate_config
from vidmem_ros.errors import ConfigError

# Settings that take effect while running; the rest need a restart.
RUNTIME_SETTINGS = ("ingest.", "query.")
QOS_OVERRIDES = "qos_overrides."
FIXED_AT_START = ("ingest.queue_size", "ingest.image_transport", "ingest.pose_source")  # they set subscriptions


def declare_config(node: Node) -> VidmemConfig:
    """Declare ``config_file``, ``profile`` and every setting; return the validated configuration.

    Values come from the YAML file (``config_file``, else the profile's file),
    then from parameter overrides (command line, launch file, parameter file).
    """
    config_file = node.declare_parameter(
        "config_file",
        "",
        ParameterDescriptor(description="YAML settings file; empty uses the profile's file", read_only=True),
    ).value
    profile = node.declare_parameter(
        "profile", "cpu", ParameterDescriptor(description="Model profile: cpu or gpu", read_only=True)
    ).value
    base = load_config(config_file or profile_path(profile))
    values: dict[str, Any] = {"profile": profile}
    for name, default, info in flatten(base):
        if name in values:
            continue
        if isinstance(default, list) and not default:
            # rclpy types an empty list as a byte array: declare the list's own type, without a value.
            param = node.declare_parameter(name, _array_type(info), _descriptor(name, info, default))
            values[name] = [] if param.value is None else list(param.value)
        else:
            param = node.declare_parameter(name, default, _descriptor(name, info, default))
            values[name] = param.value
    return config_from_values(values, origin=f"parameters of {node.get_fully_qualified_name()}")


def config_from_values(values: dict[str, Any], origin: str) -> VidmemConfig:
    nested: dict[str, Any] = {}
    for dotted, value in values.items():
        *parents, leaf = dotted.split(".")
        node = nested
        for key in parents:
            node = node.setdefault(key, {})
        node[leaf] = value
    return validate_config(nested, origin)


def watch_runtime_changes(node: Node, config: VidmemConfig) -> None:
    """Apply run-time parameter changes to the live configuration, after validating them."""

    def on_set(params: list[Parameter]) -> SetParametersResult:
        # qos_overrides.* are rclpy's own, declared read-only as a subscription is made.
        updates = {p.name: p.value for p in params if not p.name.startswith(QOS_OVERRIDES)}
        fixed = [n for n in updates if not n.startswith(RUNTIME_SETTINGS) or n in FIXED_AT_START]
        if fixed:
            return SetParametersResult(successful=False, reason=f"{', '.join(fixed)} can only be set at start-up")
        current = {name: value for name, value, _ in flatten(config)}
        try:
            candidate = config_from_values({**current, **updates}, origin="parameter update")
        except ConfigError as exc:
            return SetParametersResult(successful=False, reason=str(exc))
        for name in updates:
            section, leaf = name.split(".", 1)
            setattr(getattr(config, section), leaf, getattr(getattr(candidate, section), leaf))
        return SetParametersResult(successful=True)

    node.add_on_set_parameters_callback(on_set)


def _descriptor(name: str, info: FieldInfo, default: Any) -> ParameterDescriptor:
    read_only = not name.startswith(RUNTIME_SETTINGS) or name in FIXED_AT_START
    descriptor = ParameterDescriptor(description=info.description or "", read_only=read_only)
    low, high = _bounds(info)
    if isinstance(default, bool) or (low is None and high is None):
        return descriptor
    if isinstance(default, int):
        lo = int(low) if low is not None else -(2**31)
        hi = int(high) if high is not None else 2**31 - 1
        descriptor.integer_range = [IntegerRange(from_value=lo, to_value=hi, step=0)]
    elif isinstance(default, float):
        lo_f = float(low) if low is not None else -math.inf
        hi_f = float(high) if high is not None else math.inf
        descriptor.floating_point_range = [FloatingPointRange(from_value=lo_f, to_value=hi_f, step=0.0)]
    return descriptor


_ARRAY_TYPES = {
    str: Parameter.Type.STRING_ARRAY,
    float: Parameter.Type.DOUBLE_ARRAY,
    int: Parameter.Type.INTEGER_ARRAY,
    bool: Parameter.Type.BOOL_ARRAY,
}


def _array_type(info: FieldInfo) -> Parameter.Type:
    """The ROS array type of a list setting, from its element type (``list[str]`` -> string array)."""
    element = next(iter(get_args(info.annotation)), str)
    return _ARRAY_TYPES.get(element, Parameter.Type.STRING_ARRAY)


def _bounds(info: FieldInfo) -> tuple[float | None, float | None]:
    low = high = None
    for item in info.metadata:
        if isinstance(item, Ge | Gt):
            low = item.ge if isinstance(item, Ge) else item.gt
        elif isinstance(item, Le | Lt):
            high = item.le if isinstance(item, Le) else item.lt
    return low, high  # type: ignore[return-value]
