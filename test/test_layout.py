"""The packages' layout, read from their imports: no two modules import each other (directly or round a loop),
the library never imports the command above it, and nothing a robot installs imports the developer tooling."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("vidmem_ros", "vidmem_dev")
COMMAND = "vidmem_ros.command"  # the command a robot runs: above the library
TOOLING = "vidmem_dev"  # what only developers run: above the command


def _modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            found[name.removesuffix(".__init__")] = path
    return found


def _imports(module: str, path: Path, known: set[str]) -> set[str]:
    """The package's modules that ``module`` imports anywhere in its code (lazy imports in functions too)."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    named: list[str] = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            named += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, base] if base else parent)
            named += [base, *(f"{base}.{alias.name}" for alias in node.names)]
    found = set()
    for name in named:
        while name and name not in known:  # a name imported from a module is that module
            name = name.rpartition(".")[0]
        if name and name != module:
            found.add(name)
    return found


def import_graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imports(name, path, set(modules)) for name, path in modules.items()}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Groups of modules that reach each other through imports (Tarjan's strongly connected components)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in graph[node]:
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in graph:
        if node not in index:
            visit(node)
    return found


def test_no_module_imports_one_that_imports_it_back() -> None:
    assert circles(import_graph()) == []


def test_a_circle_is_found_round_a_loop() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert circles(graph) == [["a", "b", "c"]]


def test_the_library_does_not_import_the_command_nor_the_command_the_tooling() -> None:
    graph = import_graph()
    library = {name for name in graph if not name.startswith((COMMAND, TOOLING))}
    upward = {(name, dep) for name in library for dep in graph[name] if dep.startswith((COMMAND, TOOLING))}
    shipped = {name for name in graph if not name.startswith(TOOLING)}
    assert upward == set()
    assert {(name, dep) for name in shipped for dep in graph[name] if dep.startswith(TOOLING)} == set()


def test_tests_share_helpers_through_conftest_and_support_modules_not_each_other() -> None:
    tests = sorted((ROOT / "test").glob("test_*.py"))
    imported = {
        (path.name, alias)
        for path in tests
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in ([node.module or ""] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names])
        if alias.split(".")[0].startswith("test_")
    }
    assert tests and imported == set()


def test_only_the_nodes_and_the_command_import_rclpy() -> None:
    """The core library (memory, perception, agent, ingest, evaluation) runs without ROS."""
    ros_side = ("vidmem_ros.ros", COMMAND, TOOLING)
    importing = set()
    for name, path in _modules().items():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import | ast.ImportFrom):
                names = [node.module or ""] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
                if any(n.split(".")[0] in ("rclpy", "tf2_ros") for n in names):
                    importing.add(name)
    assert importing and {name for name in importing if not name.startswith(ros_side)} == set()


# Each package, and the packages it must never import: the arrows run one way, from the nodes and the command
# down through the agent and memory to the models.
NEVER_IMPORTS = {
    "vidmem_ros.perception": (
        "vidmem_ros.memory",
        "vidmem_ros.ingest",
        "vidmem_ros.fleet",
        "vidmem_ros.agent",
        "vidmem_ros.evaluation",
        "vidmem_ros.ros",
    ),
    "vidmem_ros.memory": (
        "vidmem_ros.ingest",
        "vidmem_ros.fleet",
        "vidmem_ros.agent",
        "vidmem_ros.evaluation",
        "vidmem_ros.ros",
    ),
    "vidmem_ros.fleet": ("vidmem_ros.ingest", "vidmem_ros.agent", "vidmem_ros.evaluation", "vidmem_ros.ros"),
    "vidmem_ros.ingest": ("vidmem_ros.agent", "vidmem_ros.evaluation", "vidmem_ros.ros"),
    "vidmem_ros.agent": ("vidmem_ros.ingest", "vidmem_ros.evaluation", "vidmem_ros.ros"),
    "vidmem_ros.evaluation": ("vidmem_ros.ros",),
}


def test_packages_import_each_other_one_way() -> None:
    graph = import_graph()
    against = {
        (name, dep)
        for package, banned in NEVER_IMPORTS.items()
        for name in graph
        if name.startswith(package)
        for dep in graph[name]
        if dep.startswith(banned)
    }
    assert against == set()
