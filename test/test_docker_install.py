"""The containers and the README's ROS 2 install take the same steps: docker/install.sh holds them, both
Dockerfiles run it, and the README's "Building on a ROS 2 install" block shows the same lines.  Read, not built:
this checks the files against each other, the Makefile, the requirement files and the launch file."""

from __future__ import annotations

import ast
import itertools
import json
import re
import shlex
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCKER = ROOT / "docker"
SCRIPT = DOCKER / "install.sh"
DISTROS = ("humble", "jazzy")
README_SECTION = "## Building on a ROS 2 install"
# What the pip path installs and a ROS install does not: ROS 2 itself (from apt there) and the test tools.
PIP_PATH_ONLY = {"ros-jazzy.txt", "dev.txt"}
# Makefile system packages that only the tests need: Chromium renders the HTML report in one.
TEST_ONLY_APT = {"chromium"}
# Build outputs and local state a checkout may hold; never sources.
LOCAL_ONLY = {".venv", ".git", "build", "install", "log", "data"}


def logical_lines(text: str) -> list[str]:
    """Lines with backslash continuations joined."""
    return text.replace("\\\n", " ").splitlines()


def commands(lines: list[str]) -> list[str]:
    """Shell commands as the README shows them: no blank or comment lines, no trailing comments, sudo for $SUDO,
    single spaces."""
    found = []
    for line in lines:
        line = re.sub(r"(^|\s)#.*$", "", line).replace("$SUDO ", "sudo ")
        line = " ".join(line.split())
        if line:
            found.append(line)
    return found


def script_region(name: str) -> list[str]:
    lines = [line.strip() for line in logical_lines(SCRIPT.read_text())]
    start, end = lines.index(f"# >>> {name}"), lines.index(f"# <<< {name}")
    return commands(lines[start + 1 : end])


def script_steps() -> list[str]:
    return script_region("deps") + script_region("build")


def readme_section() -> str:
    text = (ROOT / "README.md").read_text()
    start = text.index(README_SECTION)
    end = text.find("\n## ", start + 1)
    return text[start : end if end > 0 else None]


def readme_blocks() -> list[list[str]]:
    return [commands(logical_lines(block)) for block in re.findall(r"```bash\n(.*?)```", readme_section(), re.S)]


def readme_install_block() -> list[str]:
    blocks = [
        block for block in readme_blocks() if any(line.startswith("cd ") and "colcon build" in line for line in block)
    ]
    assert len(blocks) == 1, "the README section should have one block that builds the workspace"
    return blocks[0]


def dockerfile(distro: str) -> list[tuple[str, str]]:
    """(instruction, arguments) of each instruction, comments left out."""
    found = []
    for line in logical_lines((DOCKER / f"{distro}.Dockerfile").read_text()):
        line = line.strip()
        if line and not line.startswith("#"):
            instruction, _, rest = line.partition(" ")
            found.append((instruction.upper(), " ".join(rest.split())))
    return found


def instructions(distro: str, name: str) -> list[str]:
    return [rest for instruction, rest in dockerfile(distro) if instruction == name]


def pip_files(line: str) -> dict[str, list[str]]:
    """The requirement files of one pip command, by role: constraints (-c), requirements (-r)."""
    words = shlex.split(line)
    roles: dict[str, list[str]] = {"-c": [], "-r": []}
    for flag, value in itertools.pairwise(words):
        if flag in roles:
            roles[flag].append(Path(value).name)
    return roles


def script_pip_lines() -> list[str]:
    return [line for line in script_steps() if line.startswith("pip install") and "--upgrade pip" not in line]


def makefile_pip_lines() -> list[str]:
    text = (ROOT / "Makefile").read_text()
    return [
        " ".join(line.split()) for line in logical_lines(text) if "$(PIP) install" in line and "requirements/" in line
    ]


def launch_arguments() -> set[str]:
    """The names declared by launch/vidmem.launch.py (its `args` table)."""
    tree = ast.parse((ROOT / "launch" / "vidmem.launch.py").read_text())
    for node in ast.walk(tree):
        named_args = isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "args" for t in node.targets
        )
        if named_args and isinstance(node.value, ast.Dict):
            return {k.value for k in node.value.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)}
    raise AssertionError("launch/vidmem.launch.py declares no `args` table")


def launch_commands(words: list[str]) -> tuple[str, str, dict[str, str]]:
    assert words[:2] == ["ros2", "launch"], words
    package, launch_file, *rest = words[2:]
    return package, launch_file, dict(arg.split(":=", 1) for arg in rest)


def package_name() -> str:
    match = re.search(r"<name>([^<]+)</name>", (ROOT / "package.xml").read_text())
    assert match
    return match.group(1)


def default_of(name: str) -> str:
    """A setting's default in install.sh (NAME=${NAME:-default}), with ~ for $HOME as the README writes it."""
    match = re.search(rf"^{name}=\$\{{{name}:-([^}}]+)\}}$", SCRIPT.read_text(), re.M)
    assert match, f"install.sh sets no default for {name}"
    return match.group(1).replace("$HOME", "~")


@pytest.mark.parametrize("distro", DISTROS)
def test_each_dockerfile_is_one_stage_on_the_official_ros_image(distro: str) -> None:
    (base,) = instructions(distro, "FROM")
    assert re.fullmatch(rf"ros:{distro}(-ros-(core|base))?", base), base


def test_the_two_dockerfiles_differ_only_in_their_distro() -> None:
    humble, jazzy = ([(i, rest.replace(d, "DISTRO")) for i, rest in dockerfile(d)] for d in DISTROS)
    assert humble == jazzy


@pytest.mark.parametrize("distro", DISTROS)
def test_each_dockerfile_runs_the_install_script_and_nothing_else_that_installs(distro: str) -> None:
    runs = instructions(distro, "RUN")
    phases = [m.group(1) for run in runs for m in [re.search(r"docker/install\.sh (deps|build)\b", run)] if m]
    assert phases == ["deps", "build"], runs
    for run in runs:
        # An install step written here instead of in install.sh would be missing from the README.
        assert not re.search(r"\b(pip|colcon|rosdep|apt-get install|apt install)\b", run), run
    # The script is copied before its first run, and the sources before the build.
    order = [(i, rest) for i, rest in dockerfile(distro) if i in ("COPY", "RUN")]
    first_run = next(n for n, (i, rest) in enumerate(order) if i == "RUN")
    copied_first = {Path(src).as_posix().rstrip("/") for i, rest in order[:first_run] for src in rest.split()[:-1]}
    assert {"package.xml", "requirements", "docker/install.sh"} <= copied_first, copied_first


def cmake_sources() -> set[str]:
    """Top-level paths of the repository that CMakeLists.txt builds or installs."""
    text = re.sub(r"#.*", "", (ROOT / "CMakeLists.txt").read_text()).replace("${PROJECT_NAME}", package_name())
    found = {"CMakeLists.txt", "package.xml"}
    for token in re.findall(r"[\w./-]+", text):
        top = token.strip('"/').split("/")[0]
        if top and top not in LOCAL_ONLY and (ROOT / top).exists():
            found.add(top)
    return found


@pytest.mark.parametrize("distro", DISTROS)
def test_each_dockerfile_copies_what_colcon_builds(distro: str) -> None:
    needed = cmake_sources()
    assert {"msg", "srv", "vidmem_ros", "scripts", "launch", "config"} <= needed, needed
    copies = [rest.split() for rest in instructions(distro, "COPY")]
    copied = {Path(src).parts[0] for *sources, _ in copies for src in sources}
    assert needed <= copied, sorted(needed - copied)
    # Into the package's place in the workspace the image's WS names, which the entry point sources.
    assert "WS=/ws" in " ".join(instructions(distro, "ENV")).split()
    for *_, destination in copies:
        assert destination.startswith("/ws/src/vidmem_ros/"), destination


@pytest.mark.parametrize("distro", DISTROS)
def test_the_default_command_launches_the_package_with_declared_arguments(distro: str) -> None:
    (cmd,) = instructions(distro, "CMD")
    package, launch_file, arguments = launch_commands(json.loads(cmd))
    assert package == package_name()
    assert (ROOT / "launch" / launch_file).is_file(), launch_file
    assert re.search(r"install\(DIRECTORY[^)]*\blaunch\b", (ROOT / "CMakeLists.txt").read_text())
    assert set(arguments) <= launch_arguments(), sorted(set(arguments) - launch_arguments())
    (entrypoint,) = instructions(distro, "ENTRYPOINT")
    script = ROOT / next(word for word in json.loads(entrypoint) if "/docker/" in word).split("/vidmem_ros/", 1)[1]
    sourced = script.read_text()
    for wanted in ("/opt/ros/$ROS_DISTRO/setup.bash", "$VENV/bin/activate", "$WS/install/setup.bash", 'exec "$@"'):
        assert wanted in sourced, wanted


def test_the_readme_block_runs_the_scripts_steps_in_order() -> None:
    steps, block = script_steps(), readme_install_block()
    assert steps, "install.sh has no steps between its >>> and <<< markers"
    starts = [n for n in range(len(block) - len(steps) + 1) if block[n : n + len(steps)] == steps]
    missing = [step for step in steps if step not in block]
    extra = [
        line for line in block if line not in steps and line.startswith(("sudo", "pip", "rosdep", "colcon", "cd "))
    ]
    assert starts, f"README block and install.sh differ: not in the README {missing}; only in the README {extra}"
    # Before the steps only what the script takes from its environment: ROS, the settings, the checkout.
    preamble, after = block[: starts[0]], block[starts[0] + len(steps) :]
    assert not after, f"only in the README: {after}"
    for line in preamble:
        assert line.startswith(("source /opt/ros/", "WS=", "REQ=", "mkdir -p ")), f"only in the README: {line}"


def test_the_readme_block_and_the_images_use_the_scripts_defaults() -> None:
    setting = next(line for line in readme_install_block() if line.startswith("WS="))
    readme = dict(word.split("=", 1) for word in setting.split())
    for name in ("WS", "VENV", "TORCH_INDEX"):
        assert readme[name] == default_of(name), name
    for distro in DISTROS:
        assert f"TORCH_INDEX={default_of('TORCH_INDEX')}" in instructions(distro, "ARG")


def test_the_pip_steps_use_the_makefiles_requirement_files_and_flags() -> None:
    ours = script_pip_lines()
    theirs = makefile_pip_lines()
    assert ours and theirs
    for lines in (ours, theirs):
        for line in lines:
            roles = pip_files(line)
            if "--no-deps" in line:
                assert not roles["-c"], line
            else:
                assert roles["-c"] == ["constraints.txt"], f"without the constraints: {line}"

    def split(lines: list[str]) -> tuple[set[str], set[str]]:
        constrained = {f for line in lines if "--no-deps" not in line for f in pip_files(line)["-r"]}
        no_deps = {f for line in lines if "--no-deps" in line for f in pip_files(line)["-r"]}
        return constrained, no_deps

    (constrained, no_deps), (make_constrained, make_no_deps) = split(ours), split(theirs)
    assert constrained == make_constrained - PIP_PATH_ONLY
    assert no_deps == make_no_deps
    # Every requirement file is installed here, or is one the pip path alone needs.
    on_disk = {p.name for p in (ROOT / "requirements").glob("*.txt")}
    assert on_disk == constrained | no_deps | PIP_PATH_ONLY | {"constraints.txt"}, sorted(on_disk)
    # torch comes first, alone, from TORCH_INDEX, at the version constraints.txt pins.
    assert re.fullmatch(r'pip install -c "\$REQ/constraints\.txt" --extra-index-url "\$TORCH_INDEX" torch', ours[0])
    assert re.search(r"^torch==", (ROOT / "requirements" / "constraints.txt").read_text(), re.M)


def test_every_requirement_file_named_exists() -> None:
    named = re.findall(r"\$REQ/([\w.-]+)", "\n".join(script_steps() + readme_install_block()))
    assert named
    for name in named:
        assert (ROOT / "requirements" / name).is_file(), name
    req = next(line for line in readme_install_block() if line.startswith("REQ="))
    assert req == "REQ=$WS/src/vidmem_ros/requirements"
    assert "REQ=$WS/src/vidmem_ros/requirements" in SCRIPT.read_text().splitlines()


def test_apt_rosdep_and_colcon_steps() -> None:
    steps = script_steps()
    (apt,) = [line for line in steps if line.startswith("sudo apt-get install")]
    installed = set(apt.split()[4:])
    match = re.search(r"^SYSTEM_PACKAGES := (.*)$", (ROOT / "Makefile").read_text(), re.M)
    assert match
    runtime = set(match.group(1).split()) - TEST_ONLY_APT
    assert {"wordnet-base", "espeak-ng"} <= runtime
    assert runtime <= installed, sorted(runtime - installed)
    assert 'rosdep install --from-paths "$WS/src" --ignore-src -y' in steps
    assert steps.index("sudo apt-get update") < steps.index(apt) < steps.index("rosdep update")
    (build,) = [line for line in steps if "colcon build" in line]
    assert "--packages-select vidmem_ros" in build
    # pip before colcon: the interfaces are compiled against the venv's numpy.
    assert max(steps.index(line) for line in script_pip_lines()) < steps.index(build)
    assert steps.index('python3 -m venv --system-site-packages "$VENV"') < steps.index('source "$VENV/bin/activate"')


def test_the_readme_launches_on_a_camera_and_on_a_bag_with_sim_time() -> None:
    launches = []
    for block in readme_blocks():
        for line in block:
            if line.startswith("ros2 launch"):
                launches.append(launch_commands(shlex.split(line)))
    assert launches
    for package, launch_file, arguments in launches:
        assert (package, launch_file) == (package_name(), "vidmem.launch.py")
        assert set(arguments) <= launch_arguments(), sorted(set(arguments) - launch_arguments())
    assert any("camera" in arguments and "use_sim_time" not in arguments for *_, arguments in launches)
    assert any(arguments.get("use_sim_time") == "true" for *_, arguments in launches)
    bag_block = next(block for block in readme_blocks() if any("use_sim_time:=true" in line for line in block))
    assert any(re.fullmatch(r"ros2 bag play \S+ --clock", line) for line in bag_block), bag_block


def test_the_readme_names_every_launch_argument() -> None:
    section = readme_section()
    start = section.index("Launch arguments:")
    listed = set(re.findall(r"`(\w+)`", section[start : section.index("\n\n", start)]))
    assert launch_arguments() <= listed, sorted(launch_arguments() - listed)


def test_the_docker_readme_builds_the_dockerfiles_that_exist() -> None:
    text = (DOCKER / "README.md").read_text()
    built = re.findall(r"docker build -f (\S+)", text)
    assert {f"docker/{d}.Dockerfile" for d in DISTROS} <= set(built)
    for path in built:
        assert (ROOT / path).is_file(), path
