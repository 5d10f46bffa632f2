"""The one direction of imports (DESIGN.md, docs/architecture.md).

- ``engine`` imports only itself and the standard library;
- ``render`` imports only ``engine`` (and Pillow, and zlib-ng for its PNG writer);
- the service (``bot`` outside its platforms) never imports a platform;
- the service's foundation (``bot.core``, ``bot.words``, ``bot.store``, ``bot.operator``)
  imports no concern (``bot.play``, ``bot.community``, ``bot.tournaments``, ``bot.pages``):
  each concern registers with the core, and only the builder (``bot.service``) imports them;
- a concern imports another only along an arrow of :data:`CONCERNS`;
- the foundation stands in floors (:data:`FLOORS`): the words (the catalogues), the store,
  the core, the operator's room; each imports only its own floor and those below, so no
  arrow between two packages runs back up;
- a platform (``bot.console``, ``bot.telegram``, ``bot.discord``, ``bot.web``) imports only
  the service's public surface (:data:`PUBLIC_SURFACE`): never ``engine``, ``render``,
  another platform, a concern or the core's internals;
- discord.py and python-telegram-bot stay inside their own platform's package;
- no import circles anywhere, counting imports inside functions and ``TYPE_CHECKING``,
  among modules nor among the packages of ``bot`` (a package importing one that
  imports it back, even through other modules, is a circle).

Each check fails naming the file and the import that breaks it. The checker itself is tested
on small made-up trees, so a rule that silently stopped checking would be noticed.
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("engine", "render", "bot")
STDLIB = set(sys.stdlib_module_names) | {"__future__"}
#: Outside libraries each top-level package may use.
LIBRARIES = {
    "engine": set[str](),
    "render": {"PIL", "xxhash", "zlib_ng"},
    "bot": {
        "PIL",
        "openskill",
        "discord",
        "telegram",
        "aiohttp",
        "httpx",
        "babel",
        "psycopg",
        "psycopg_pool",
        "prometheus_client",
    },
}
PLATFORMS = ("bot.console", "bot.telegram", "bot.discord", "bot.web")
#: The one platform library each platform package may import.
PLATFORM_LIBRARY = {"bot.telegram": "telegram", "bot.discord": "discord"}
#: What a platform may import of the service (docs/architecture.md): the service as built
#: with its concerns, the plain values it speaks in, its texts, settings and logs, the
#: store's errors, and the web board's signed links. Never a concern, the core's internals
#: (its tables, the games, players and images), the engine or the renderer.
PUBLIC_SURFACE = (
    "bot.service",
    "bot.core.commands",
    "bot.core.parsing",
    "bot.core.durations",
    "bot.core.table",
    "bot.core.outbound",
    "bot.core.looks",
    "bot.core.workers",
    "bot.core.stepping",
    "bot.words.texts",
    "bot.core.messages",
    "bot.core.config",
    "bot.operator.logs",
    "bot.store",
    "bot.pages.links",
)
#: The service's foundation: the core, its words, its store and the operator's side. It
#: imports no concern: concerns plug into it through ``bot.core.tables.Concern``.
FOUNDATION = ("bot.core", "bot.words", "bot.store", "bot.operator")
#: The concerns, each a package that registers itself with the core, and the concerns each
#: may import (the arrows docs/architecture.md draws); only the service's builder
#: (``bot.service``) imports them all.
CONCERNS = {
    "bot.play": {"bot.community"},
    "bot.community": set[str](),
    "bot.tournaments": {"bot.play", "bot.community"},
    "bot.pages": {"bot.community"},
}
BUILDER = "bot.service"
#: The foundation's floors, from the ground up: the catalogues and their reader
#: (``bot.words``, which import nothing of ours), the store and the table it keeps
#: (``bot.store``), the core that builds what the bot says from both (``bot.core``), and what
#: the operator runs and reads (``bot.operator``: logs, the health page, backups, the tools).
#: A module imports its own floor and those below it, never one above.
FLOORS = ("bot.words", "bot.store", "bot.core", "bot.operator")
#: The process entry point chooses and starts a platform, so it may name them.
LAUNCHER = "bot.__main__"


@dataclass(frozen=True)
class Import:
    """One import statement of one of our modules: ``target`` is the module it names."""

    module: str
    path: Path
    line: int
    target: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line} imports {self.target}"


def module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules(root: Path) -> dict[str, Path]:
    """Every module of our packages under ``root`` by dotted name."""
    found: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            if ".venv" not in path.parts:
                found[module_name(root, path)] = path
        # A compiled module of ours (engine/ai/_kernel.c) is known by its type stub.
        for path in sorted((root / package).rglob("*.pyi")):
            if ".venv" not in path.parts and not path.with_suffix(".py").exists():
                found[module_name(root, path)] = path
    return found


def _resolve(name: str, known: dict[str, Path]) -> str:
    """The longest prefix of ``name`` that is one of our modules (or ``name`` itself)."""
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        candidate = ".".join(parts[:end])
        if candidate in known:
            return candidate
    return name


def imports(root: Path, known: dict[str, Path]) -> list[Import]:
    """Every import of every module, resolved to the module it names (a ``from package
    import submodule`` names the submodule)."""
    out: list[Import] = []
    for module, path in known.items():
        is_package = path.name == "__init__.py"
        rel = path.relative_to(root)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [_resolve(alias.name, known) for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = module.split(".")
                    anchor = anchor if is_package else anchor[:-1]
                    anchor = anchor[: len(anchor) - (node.level - 1)]
                    base = ".".join([*anchor, base] if base else anchor)
                for alias in node.names:
                    full = f"{base}.{alias.name}"
                    targets.append(full if full in known else _resolve(base, known))
            elif (
                isinstance(node, ast.Call)
                and getattr(node.func, "attr", None) == "import_module"
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
            ):
                targets = [_resolve(node.args[0].value, known)]
            out.extend(Import(module, rel, node.lineno, t) for t in targets if t != module)
    return out


def _within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def _concern_of(module: str) -> str | None:
    return next((c for c in CONCERNS if _within(module, c)), None)


def _floor_of(module: str) -> int | None:
    return next((i for i, f in enumerate(FLOORS) if _within(module, f)), None)


def _platform_of(module: str) -> str | None:
    return next((p for p in PLATFORMS if _within(module, p)), None)


def violations(root: Path) -> list[str]:
    """Every import that breaks a direction rule, as ``file:line imports module (why)``."""
    known = modules(root)
    bad: list[str] = []
    for imp in imports(root, known):
        top = imp.module.split(".")[0]
        target_top = imp.target.split(".")[0]
        ours = target_top in PACKAGES
        platform = _platform_of(imp.module)
        if not ours:
            if target_top in STDLIB:
                continue
            if target_top not in LIBRARIES[top]:
                bad.append(f"{imp} (not a library {top}/ may use)")
            elif target_top in PLATFORM_LIBRARY.values() and (
                platform is None or PLATFORM_LIBRARY.get(platform) != target_top
            ):
                bad.append(f"{imp} (only its own platform package may use it)")
            continue
        if top == "engine" and target_top != "engine":
            bad.append(f"{imp} (the engine imports nothing of ours)")
        elif top == "render" and target_top not in ("engine", "render"):
            bad.append(f"{imp} (render imports only the engine)")
        elif top == "bot" and platform is None and imp.module != LAUNCHER:
            concern, wanted = _concern_of(imp.module), _concern_of(imp.target)
            if _platform_of(imp.target) is not None:
                bad.append(f"{imp} (the service never imports a platform)")
            elif wanted is not None and imp.module != BUILDER:
                if any(_within(imp.module, f) for f in FOUNDATION):
                    bad.append(f"{imp} (the core imports no concern: it registers with the core)")
                elif concern is not None and concern != wanted and wanted not in CONCERNS[concern]:
                    bad.append(f"{imp} (no arrow from {concern} to {wanted})")
            elif (here := _floor_of(imp.module)) is not None and (
                (there := _floor_of(imp.target)) is not None and there > here
            ):
                bad.append(f"{imp} ({FLOORS[there]} stands above {FLOORS[here]})")
        elif platform is not None:
            if target_top in ("engine", "render"):
                bad.append(f"{imp} (a platform asks the service, never {target_top})")
            elif (other := _platform_of(imp.target)) is not None and other != platform:
                bad.append(f"{imp} (a platform never imports another platform)")
            elif other is None and not any(_within(imp.target, m) for m in PUBLIC_SURFACE):
                bad.append(f"{imp} (a service internal; use the service's public surface)")
    for module, path in known.items():
        if _platform_of(module) is None:
            continue
        # The store is the service's own: a platform that reached into it would bypass the
        # table locks and the claims of due work.
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr == "store":
                rel = path.relative_to(root)
                bad.append(f"{rel}:{node.lineno} reads .store (ask the service instead)")
    return list(dict.fromkeys(bad))  # one line per import, however many names it takes


def cycles(root: Path) -> list[list[str]]:
    """The import circles among our modules (strongly connected components of two or more
    modules, or a module importing itself), each listed from its smallest name."""
    known = modules(root)
    graph: dict[str, set[str]] = {m: set() for m in known}
    for imp in imports(root, known):
        if imp.target in known:
            graph[imp.module].add(imp.target)
    return _circles(graph)


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of two nodes or more, each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan's algorithm; the graph is small, recursion is fine
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
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
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def package_of(module: str) -> str:
    """The package of ``bot`` a module belongs to (``bot.core.tables`` -> ``bot.core``); a
    module straight under ``bot`` (``bot.service``, ``bot.console``) is a package of its own,
    as is any module of ``engine`` or ``render`` (they have their own rules)."""
    parts = module.split(".")
    return ".".join(parts[:2]) if parts[0] == "bot" and len(parts) > 1 else module


def package_cycles(root: Path) -> list[list[str]]:
    """The circles among the packages of ``bot``: packages that import each other, directly
    or through others, each listed from its smallest name."""
    known = modules(root)
    graph: dict[str, set[str]] = {}
    for imp in imports(root, known):
        if imp.target in known and imp.module.startswith("bot.") and imp.target.startswith("bot."):
            here, there = package_of(imp.module), package_of(imp.target)
            graph.setdefault(here, set())
            graph.setdefault(there, set())
            if here != there:
                graph[here].add(there)
    return _circles(graph)


# --- the project -------------------------------------------------------------------------


def test_every_package_has_modules() -> None:
    known = modules(ROOT)
    for package in (*PACKAGES, *PLATFORMS):
        assert package in known, f"{package} is missing"


def test_imports_go_one_way() -> None:
    bad = violations(ROOT)
    assert not bad, "\n".join(bad)


def test_no_import_circles() -> None:
    found = cycles(ROOT)
    assert not found, "import circles: " + "; ".join(" <-> ".join(c) for c in found)


def test_no_circles_among_packages() -> None:
    found = package_cycles(ROOT)
    assert not found, "package circles: " + "; ".join(" <-> ".join(c) for c in found)


def test_the_foundation_stands_in_floors() -> None:
    """Every package of the foundation is on a floor, and the words import nothing of ours
    but themselves (they are the ground every other floor speaks from)."""
    known = modules(ROOT)
    foundation = {package_of(m) for m in known if package_of(m) in FOUNDATION}
    assert foundation == set(FLOORS) == set(FOUNDATION)
    words = [
        str(imp)
        for imp in imports(ROOT, known)
        if _within(imp.module, "bot.words")
        and imp.target.split(".")[0] in PACKAGES
        and not _within(imp.target, "bot.words")
    ]
    assert words == []


# --- the checker, on made-up trees ---------------------------------------------------------


def _tree(root: Path, files: dict[str, str]) -> Path:
    for package in PACKAGES:
        (root / package).mkdir(parents=True, exist_ok=True)
        (root / package / "__init__.py").touch()
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


@pytest.mark.parametrize(
    ("name", "text", "why"),
    [
        ("engine/rules.py", "from render import board\n", "the engine imports nothing of ours"),
        ("engine/rules.py", "import PIL\n", "not a library engine/ may use"),
        ("render/board.py", "from bot import service\n", "render imports only the engine"),
        ("bot/service.py", "from bot.telegram import app\n", "the service never imports"),
        ("bot/discord/choices.py", "from engine.hexgrid import Hex\n", "never engine"),
        ("bot/discord/views.py", "from bot.telegram.limits import fit\n", "another platform"),
        ("bot/console.py", "from bot.core.games import rack_text\n", "a service internal"),
        ("bot/telegram/app.py", "from bot.play.lobby import kick\n", "a service internal"),
        ("bot/service.py", "def f():\n    import discord\n", "only its own platform"),
        ("bot/telegram/app.py", "import discord\n", "only its own platform"),
        ("bot/console.py", "def f(service):\n    return service.store.due(0)\n", "reads .store"),
        ("bot/core/tables.py", "from bot.play import lobby\n", "the core imports no concern"),
        ("bot/core/messages.py", "def f():\n    from bot.play import lobby\n", "no concern"),
        ("bot/community/social.py", "from bot.tournaments import places\n", "no arrow from"),
        ("bot/telegram/app.py", "from bot.core.tables import Tables\n", "a service internal"),
        ("bot/core/tables.py", "from bot.operator import ops\n", "stands above bot.core"),
        ("bot/words/texts.py", "from bot.core.games import Game\n", "stands above bot.words"),
        ("bot/words/texts.py", "def f():\n    from bot.store import base\n", "above bot.words"),
        ("bot/store/base.py", "from bot.core.tables import Tables\n", "stands above bot.store"),
        ("bot/store/base.py", "from bot.operator import ops\n", "stands above bot.store"),
    ],
)
def test_the_checker_names_each_broken_rule(tmp_path: Path, name: str, text: str, why: str) -> None:
    files = {
        "bot/telegram/__init__.py": "",
        "bot/telegram/app.py": "",
        "bot/telegram/limits.py": "",
        "bot/discord/__init__.py": "",
        "bot/console.py": "",
        "bot/core/games.py": "",
        "bot/core/tables.py": "",
        "bot/operator/ops.py": "",
        "bot/core/messages.py": "",
        "bot/words/texts.py": "",
        "bot/store/base.py": "",
        "bot/play/lobby.py": "",
        "bot/community/social.py": "",
        "bot/tournaments/places.py": "",
        "bot/service.py": "",
        "engine/hexgrid.py": "",
        "render/board.py": "",
    }
    files[name] = text
    (found,) = violations(_tree(tmp_path, files))
    assert found.startswith(f"{name}:") and why in found


def test_the_checker_allows_what_the_rules_allow(tmp_path: Path) -> None:
    files = {
        "engine/rules.py": "import json\nfrom engine import hexgrid\nfrom . import hexgrid\n",
        "engine/hexgrid.py": "",
        "render/board.py": "from PIL import Image\nfrom engine.rules import x\n",
        "bot/service.py": (
            "from engine import rules\nfrom render import board\n"
            "from bot.play import lobby\nfrom bot.tournaments import commands\n"
        ),
        "bot/__main__.py": "import importlib\nimportlib.import_module('bot.telegram')\n",
        "bot/telegram/__init__.py": "",
        "bot/telegram/app.py": "import telegram\nfrom bot.service import Service\n",
        "bot/core/tables.py": "from bot.store import Store\n",
        "bot/play/lobby.py": "from bot.core import tables\nfrom bot.community import social\n",
        "bot/community/social.py": "",
        "bot/tournaments/commands.py": "from bot.play import lobby\n",
    }
    assert violations(_tree(tmp_path, files)) == []


def test_the_checker_finds_circles_among_packages(tmp_path: Path) -> None:
    """No module imports itself back, yet the packages do: ``play`` -> ``community`` ->
    ``play`` through different modules."""
    files = {
        "bot/play/moves.py": "from bot.community import social\n",
        "bot/play/lobby.py": "",
        "bot/community/social.py": "",
        "bot/community/ladders.py": "def f():\n    from bot.play import lobby\n",
        "bot/core/tables.py": "from bot.words import texts\n",
        "bot/words/texts.py": "",
    }
    root = _tree(tmp_path, files)
    assert cycles(root) == []
    assert package_cycles(root) == [["bot.community", "bot.play"]]


def test_the_checker_finds_circles_even_inside_functions(tmp_path: Path) -> None:
    files = {
        "engine/a.py": "from engine import b\n",
        "engine/b.py": "def f():\n    from engine.c import g\n",
        "engine/c.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import engine.a\n",
        "engine/d.py": "from engine import a\n",
    }
    assert cycles(_tree(tmp_path, files)) == [["engine.a", "engine.b", "engine.c"]]
