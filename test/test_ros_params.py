"""Settings as ROS parameters: their types, and a ROS-format parameter file passed with --params-file."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import rclpy
from rcl_interfaces.msg import ParameterType
from rclpy.context import Context
from rclpy.node import Node
from rclpy.parameter import Parameter

from vidmem_ros.ros.params import declare_config


@pytest.fixture
def context() -> Iterator[Context]:
    context = Context()
    rclpy.init(context=context)
    yield context
    rclpy.shutdown(context=context)


def test_a_list_setting_is_a_string_array_not_a_byte_array(context: Context) -> None:
    node = Node("vidmem_params_default", context=context)
    config = declare_config(node)
    described = node.describe_parameters(["detector.labels", "detector.min_score"])
    assert [d.type for d in described] == [ParameterType.PARAMETER_STRING_ARRAY, ParameterType.PARAMETER_DOUBLE]
    assert config.detector.labels == []
    node.destroy_node()


def test_settings_come_from_a_ros_format_parameter_file(context: Context, tmp_path: Path) -> None:
    params = tmp_path / "robot.params.yaml"
    params.write_text(
        "/**:\n  ros__parameters:\n    detector:\n      labels: [forklift, pallet]\n      min_score: 0.6\n"
        "    query:\n      occasion_gap_s: 20.0\n"
    )
    node = Node("vidmem_params_file", context=context, cli_args=["--ros-args", "--params-file", str(params)])
    config = declare_config(node)
    assert config.detector.labels == ["forklift", "pallet"] and config.detector.min_score == 0.6
    assert config.query.occasion_gap_s == 20.0
    node.destroy_node()


def test_a_list_given_as_an_override_is_used(context: Context) -> None:
    labels = Parameter("detector.labels", Parameter.Type.STRING_ARRAY, ["cup"])
    node = Node("vidmem_params_override", context=context, parameter_overrides=[labels])
    assert declare_config(node).detector.labels == ["cup"]
    node.destroy_node()


@pytest.mark.parametrize("profile", ["cpu", "gpu"])
def test_the_shipped_parameter_files_are_the_profiles_in_ros_format(
    context: Context, profile: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from vidmem_ros.command.main import main
    from vidmem_ros.config import CONFIG_DIR, load_config, profile_path

    shipped = CONFIG_DIR / "ros" / f"{profile}.params.yaml"
    assert main(["params", "--profile", profile]) == 0
    assert capsys.readouterr().out == shipped.read_text(), f"regenerate {shipped} with `vidmem params`"
    node = Node(f"vidmem_params_{profile}", context=context, cli_args=["--ros-args", "--params-file", str(shipped)])
    assert declare_config(node) == load_config(profile_path(profile))
    node.destroy_node()
