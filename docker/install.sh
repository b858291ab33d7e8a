#!/usr/bin/env bash
# Install vidmem_ros into a colcon workspace on a ROS 2 install (Humble or Jazzy): apt packages, rosdep,
# the pip requirements in a virtual environment, colcon build.  docker/humble.Dockerfile and
# docker/jazzy.Dockerfile run this script; the README's "Building on a ROS 2 install" block shows the same
# lines, and test/test_docker_install.py fails when the two differ.
#
#   docker/install.sh [deps|build]   (both when left out; the containers run them as two layers)
#
# Environment: ROS_DISTRO (humble or jazzy, set by the ros images and by /opt/ros/<distro>/setup.bash);
# WS, the workspace holding src/vidmem_ros (default ~/ros2_ws); VENV (default ~/vidmem-venv); TORCH_INDEX,
# the extra index torch comes from: its CPU build for the cpu profile (the default), a CUDA build for the
# gpu profile (https://pypi.org/simple on x86_64; on Jetson see docker/README.md).
#
# Why a virtual environment: pydantic must be 2.x (Ubuntu 22.04's python3-pydantic is 1.x), numpy, opencv
# and the models come from pip, and Ubuntu 24.04 refuses pip installs into the system Python (PEP 668).
# --system-site-packages keeps rclpy and the message packages from apt visible, and the venv's packages
# come before the apt ones of the same name.  Its python3 runs the nodes (their scripts start with
# `#!/usr/bin/env python3`), so activate it before `ros2 launch`.
set -eo pipefail

phase=${1:-all}
case $phase in all | deps | build) ;; *) echo "usage: $0 [deps|build]" >&2 && exit 2 ;; esac
set --  # setup.bash files read the positional arguments

: "${ROS_DISTRO:?set ROS_DISTRO (humble or jazzy) or source /opt/ros/<distro>/setup.bash first}"
WS=${WS:-$HOME/ros2_ws}
VENV=${VENV:-$HOME/vidmem-venv}
TORCH_INDEX=${TORCH_INDEX:-https://download.pytorch.org/whl/cpu}
REQ=$WS/src/vidmem_ros/requirements
SUDO=$([ "$(id -u)" = 0 ] || echo sudo)
source "/opt/ros/$ROS_DISTRO/setup.bash"

if [ "$phase" != build ]; then
  # The README block shows the lines from here to '<<< deps', with sudo for $SUDO.
  # >>> deps
  # wordnet-base: the label vocabulary (lexicon.wordnet_dir); espeak-ng and fonts-dejavu-core: speech and
  # signs of the sample patrol bag; the mcap plugin plays MCAP bags on Humble; build-essential and cmake
  # compile llama.cpp (llama-cpp-python, requirements/parser.txt); python3-dev the interfaces' C extension.
  $SUDO apt-get update
  $SUDO apt-get install -y ros-dev-tools build-essential cmake python3-dev python3-venv wordnet-base espeak-ng fonts-dejavu-core ros-$ROS_DISTRO-rosbag2-storage-mcap
  [ -e /etc/ros/rosdep/sources.list.d/20-default.list ] || $SUDO rosdep init
  rosdep update
  rosdep install --from-paths "$WS/src" --ignore-src -y
  python3 -m venv --system-site-packages "$VENV"
  source "$VENV/bin/activate"
  pip install --upgrade pip
  # torch first, from TORCH_INDEX, so nothing pulls another build; constraints.txt pins its version.
  pip install -c "$REQ/constraints.txt" --extra-index-url "$TORCH_INDEX" torch
  pip install -c "$REQ/constraints.txt" -r "$REQ/base.txt" -r "$REQ/perception.txt" -r "$REQ/parser.txt" -r "$REQ/fleet.txt"
  pip install --no-deps -r "$REQ/no-deps.txt"
  # <<< deps
fi

if [ "$phase" != deps ]; then
  [ "${VIRTUAL_ENV:-}" = "$VENV" ] || source "$VENV/bin/activate"
  # >>> build
  # The interfaces' C extension is built against the venv's Python and numpy.
  cd "$WS" && colcon build --packages-select vidmem_ros --cmake-args -DPython3_EXECUTABLE="$VENV/bin/python3"
  source "$WS/install/setup.bash"
  # Join the question parser's model (22 part packages) into ~/.cache/vidmem now rather than at the first start.
  python3 -c "from vidmem_ros.agent.question_model import packaged_parser_gguf; from vidmem_ros.packaged_model import cache_dir; print(packaged_parser_gguf(cache_dir('question-parser')))"
  # <<< build
fi
