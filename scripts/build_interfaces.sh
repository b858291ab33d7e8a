#!/usr/bin/env bash
# Build msg/ and srv/ with rosidl against the ROS 2 wheels in a virtual environment
# and install the generated code into it.  Usage: build_interfaces.sh VENV BUILD_DIR
set -euo pipefail
venv=$(cd "$1" && pwd)
build=$2
src=$(cd "$(dirname "$0")/.." && pwd)
py="$venv/bin/python"

# The wheels' CMake files carry the include paths of the machine that built them.
py_include=$("$py" -c "import sysconfig; print(sysconfig.get_paths()['include'])")
np_include=$("$py" -c "import numpy; print(numpy.get_include())")
{ grep -rlI --include="*.cmake" "/opt/python/cp3" "$venv/share" 2>/dev/null || true; } | while read -r f; do
  sed -i -E \
    -e "s#/opt/python/cp3[0-9]+-cp3[0-9]+/lib/python3\.[0-9]+/site-packages/numpy/_core/include#$np_include#g" \
    -e "s#/opt/python/cp3[0-9]+-cp3[0-9]+/include/python3\.[0-9]+#$py_include#g" "$f"
done

mkdir -p "$build"
export AMENT_PREFIX_PATH="$venv" PATH="$venv/bin:$PATH"
cmake -S "$src" -B "$build" -DVIDMEM_INSTALL_PYTHON=OFF -DBUILD_TESTING=OFF \
  -DCMAKE_PREFIX_PATH="$venv" -DCMAKE_INSTALL_PREFIX="$venv" -DPython3_EXECUTABLE="$py" >"$build/configure.log" \
  || { tail -n 40 "$build/configure.log"; exit 1; }
cmake --build "$build" -j "$(nproc)" >"$build/build.log" 2>&1 || { tail -n 40 "$build/build.log"; exit 1; }
cmake --install "$build" >"$build/install.log" || { tail -n 40 "$build/install.log"; exit 1; }

# The generated package must not shadow the source package: without its
# __init__.py it is a plain directory that vidmem_ros/__init__.py adds to __path__.
# Its egg-info goes too, or pip would take it for an older vidmem_ros and uninstall it.
site=$("$py" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
rm -rf "$site/vidmem_ros/__init__.py" "$site/vidmem_ros/__pycache__" "$site"/vidmem_ros-*.egg-info
