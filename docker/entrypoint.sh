#!/usr/bin/env bash
# The container's entry point: the ROS underlay, the virtual environment with the pip requirements, then
# the workspace, as on a robot (README, "Building on a ROS 2 install"); then the command.
set -e
source "/opt/ros/$ROS_DISTRO/setup.bash" --
source "$VENV/bin/activate"
source "$WS/install/setup.bash" --
exec "$@"
