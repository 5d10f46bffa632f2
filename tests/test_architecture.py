"""The one direction of imports (DESIGN.md): bot -> render -> engine; engine is pure."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
STDLIB = set(sys.stdlib_module_names)
ALLOWED = {
    "engine": {"engine"},
    "render": {"engine", "render", "PIL"},
    "bot": {"engine", "render", "bot", "PIL", "babel", "discord", "telegram", "aiohttp", "httpx"},
}


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
        elif (
            isinstance(node, ast.Call)
            and getattr(node.func, "attr", None) == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
        ):
            names.add(str(node.args[0].value).split(".")[0])
    return names


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_imports_go_one_way(package: str) -> None:
    files = sorted((ROOT / package).rglob("*.py"))
    assert files, f"{package}/ has no modules"
    for path in files:
        foreign = imported_modules(path) - STDLIB - ALLOWED[package] - {"__future__"}
        assert not foreign, f"{path.relative_to(ROOT)} imports {sorted(foreign)}"


def test_platform_libraries_stay_in_their_adapters() -> None:
    for path in sorted((ROOT / "bot").rglob("*.py")):
        names = imported_modules(path)
        if "discord" in names:
            assert "discord" in path.stem, f"{path.name} imports discord.py"
        if "telegram" in names:
            assert "telegram" in path.stem, f"{path.name} imports python-telegram-bot"
