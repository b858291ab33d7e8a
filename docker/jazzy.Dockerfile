# vidmem_ros on ROS 2 Jazzy (Ubuntu 24.04, Python 3.12).  From the repository root:
#   docker build -f docker/jazzy.Dockerfile -t vidmem:jazzy .
# The install steps are docker/install.sh, the same lines as the README's "Building on a ROS 2 install".
FROM ros:jazzy-ros-base

# Where torch comes from: its CPU build (cpu profile); --build-arg TORCH_INDEX=https://pypi.org/simple gives
# PyPI's CUDA build for the gpu profile.
ARG TORCH_INDEX=https://download.pytorch.org/whl/cpu
ARG DEBIAN_FRONTEND=noninteractive
# The model cache and ROS logs live where any user can write, so the container can run as the host's user
# (see docker/README.md); no pip cache in the image.
ENV WS=/ws VENV=/opt/vidmem-venv XDG_CACHE_HOME=/opt/vidmem-cache HF_HOME=/opt/vidmem-cache/huggingface \
    ROS_HOME=/tmp/ros PIP_NO_CACHE_DIR=1
SHELL ["/bin/bash", "-c"]

# Dependencies first, from package.xml and requirements/ alone, so a source change does not redo them
# (llama-cpp-python compiles llama.cpp here).
COPY package.xml /ws/src/vidmem_ros/
COPY requirements /ws/src/vidmem_ros/requirements
COPY docker/install.sh /ws/src/vidmem_ros/docker/
RUN bash /ws/src/vidmem_ros/docker/install.sh deps && rm -rf /var/lib/apt/lists/*

# What CMakeLists.txt builds, installs and tests (colcon test).
COPY CMakeLists.txt /ws/src/vidmem_ros/
COPY msg /ws/src/vidmem_ros/msg
COPY srv /ws/src/vidmem_ros/srv
COPY vidmem_ros /ws/src/vidmem_ros/vidmem_ros
COPY vidmem_dev /ws/src/vidmem_ros/vidmem_dev
COPY scripts /ws/src/vidmem_ros/scripts
COPY launch /ws/src/vidmem_ros/launch
COPY config /ws/src/vidmem_ros/config
COPY test /ws/src/vidmem_ros/test
COPY docker /ws/src/vidmem_ros/docker
RUN bash /ws/src/vidmem_ros/docker/install.sh build && chmod -R a+rwX "$XDG_CACHE_HOME"

VOLUME /data
ENTRYPOINT ["/bin/bash", "/ws/src/vidmem_ros/docker/entrypoint.sh"]
CMD ["ros2", "launch", "vidmem_ros", "vidmem.launch.py", "store:=/data/memory.db"]
