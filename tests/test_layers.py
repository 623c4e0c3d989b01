"""The layer rules of ARCHITECTURE.md, checked on the source: who may import whom, no module-level
import cycles, no use of another module's private names."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PARTS = ("addin", "server", "shared", "prompts")


def _modules() -> dict[str, ast.Module]:
    out: dict[str, ast.Module] = {}
    for part in PARTS:
        for path in sorted((ROOT / part).rglob("*.py")):
            rel = path.relative_to(ROOT).with_suffix("")
            name = ".".join(("celltrace", *rel.parts)).removesuffix(".__init__")
            out[name] = ast.parse(path.read_text("utf-8"))
    return out


MODULES = _modules()


def _module_level_imports(tree: ast.Module) -> list[ast.Import | ast.ImportFrom]:
    """Imports that run when the module is imported (not in functions or `if TYPE_CHECKING`)."""
    found: list[ast.Import | ast.ImportFrom] = []
    stack: list[ast.stmt] = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.append(node)
        elif isinstance(node, ast.If) and "TYPE_CHECKING" not in ast.unparse(node.test):
            stack += node.body + node.orelse
        elif isinstance(node, ast.Try):
            stack += node.body + node.orelse + node.finalbody + [s for h in node.handlers for s in h.body]
    return found


def _targets(node: ast.Import | ast.ImportFrom) -> list[str]:
    """The celltrace modules an import statement loads."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name.startswith("celltrace.")]
    base = node.module or ""
    if not base.startswith("celltrace"):
        return []
    return [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names]


def _all_imports(tree: ast.Module) -> set[str]:
    return {t for n in ast.walk(tree) if isinstance(n, ast.Import | ast.ImportFrom) for t in _targets(n)}


def test_addin_never_imports_the_server() -> None:
    found = {
        m: sorted(t for t in _all_imports(tree) if t.startswith("celltrace.server"))
        for m, tree in MODULES.items()
        if m.startswith("celltrace.addin")
    }
    assert {m: t for m, t in found.items() if t} == {}


def test_shared_imports_only_shared() -> None:
    found = {
        m: sorted(t for t in _all_imports(tree) if not t.startswith("celltrace.shared"))
        for m, tree in MODULES.items()
        if m.startswith("celltrace.shared")
    }
    assert {m: t for m, t in found.items() if t} == {}


INFRA = ("celltrace.server.infra",)
ENGINES = (
    "celltrace.server.engine", "celltrace.server.offline", "celltrace.server.longform",
    "celltrace.server.evaluation",
)
ENTRY_POINTS = (
    "celltrace.server.cli", "celltrace.server.app", "celltrace.server.picture", "celltrace.server.commands",
    "celltrace.server.api",
)


def _under(module: str, packages: tuple[str, ...]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in packages)


def test_infrastructure_imports_only_infrastructure_and_shared() -> None:
    below = (*INFRA, "celltrace.shared", "celltrace.prompts")
    found = {
        m: sorted(t for t in _all_imports(tree) if not _under(t, below))
        for m, tree in MODULES.items()
        if _under(m, INFRA)
    }
    assert {m: t for m, t in found.items() if t} == {}


def test_engines_never_import_entry_points() -> None:
    found = {
        m: sorted(t for t in _all_imports(tree) if _under(t, ENTRY_POINTS))
        for m, tree in MODULES.items()
        if _under(m, ENGINES)
    }
    assert {m: t for m, t in found.items() if t} == {}


def test_no_module_level_import_cycles() -> None:
    graph = {
        m: {t for n in _module_level_imports(tree) for t in _targets(n) if t in MODULES and t != m}
        for m, tree in MODULES.items()
    }
    cycles: list[list[str]] = []
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for module in graph:
        if module not in index:
            visit(module)
    assert cycles == []


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def test_no_module_uses_another_modules_private_names() -> None:
    found: list[str] = []
    for module, tree in MODULES.items():
        aliases: dict[str, str] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("celltrace"):
                for alias in node.names:
                    full = f"{node.module}.{alias.name}"
                    if full in MODULES:
                        aliases[alias.asname or alias.name] = full
                    elif _private(alias.name) and node.module != module:
                        found.append(f"{module}: from {node.module} import {alias.name}")
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name in MODULES and alias.asname:
                        aliases[alias.asname] = alias.name
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in aliases
                and _private(node.attr)
            ):
                found.append(f"{module}: {aliases[node.value.id]}.{node.attr}")
    assert found == []
