"""The retained-mode scene (render/scene.py): whatever scenes were kept, a drawing has the
pixels of pasting its items on the background one after another."""

from __future__ import annotations

import io
import random
import threading
from collections.abc import Callable, Sequence

import pytest
from PIL import Image

from render import encode, scene
from render.scene import Item, Scenes, draw_full, merge_boxes
from render.sprites import Sprite

SIZE = (64, 48)


def noise(rng: random.Random, size: tuple[int, int], mode: str) -> Image.Image:
    img = Image.new(mode, size)
    top = 1 if mode == "1" else 255
    img.putdata([rng.randint(0, top) for _ in range(size[0] * size[1])])
    return img


def sprites(rng: random.Random, count: int) -> list[Sprite]:
    """Sprites of every size up to a third of the image, with ragged masks and anchors
    inside or outside them."""
    made = []
    for _ in range(count):
        size = (rng.randint(1, 22), rng.randint(1, 16))
        mask = noise(rng, size, "1")
        made.append(Sprite(noise(rng, size, "L"), mask, rng.randint(-12, 4), rng.randint(-9, 3)))
    return made


def solid(value: int, size: tuple[int, int]) -> Sprite:
    return Sprite(Image.new("L", size, value), Image.new("1", size, 1), 0, 0)


@pytest.fixture
def full_draws(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many pictures were drawn in full (one count per call of draw_full)."""
    calls = [0]

    def counted(
        background: Image.Image, items: Sequence[Item], out: Image.Image | None = None
    ) -> Image.Image:
        calls[0] += 1
        return draw_full(background, items, out)

    monkeypatch.setattr(scene, "draw_full", counted)
    return calls


def edit(rng: random.Random, items: list[Item], pool: list[Sprite]) -> list[Item]:
    """The next scene: a few items added, dropped, moved in the list or elsewhere, or
    swapped for another sprite."""
    items = list(items)
    for _ in range(rng.randint(0, 3)):
        kind = rng.choice(["add", "drop", "reorder", "move", "swap"])
        if kind == "add" or not items:
            at = (rng.randint(-15, SIZE[0] + 8), rng.randint(-12, SIZE[1] + 8))
            items.insert(rng.randint(0, len(items)), (rng.choice(pool), *at))
        elif kind == "drop":
            items.pop(rng.randrange(len(items)))
        elif kind == "reorder":
            items.insert(rng.randint(0, len(items) - 1), items.pop(rng.randrange(len(items))))
        elif kind == "move":
            k = rng.randrange(len(items))
            sprite, x, y = items[k]
            items[k] = (sprite, x + rng.randint(-3, 3), y + rng.randint(-3, 3))
        else:
            k = rng.randrange(len(items))
            items[k] = (rng.choice(pool), *items[k][1:])
    # An item twice is drawn in full; keep the walk on the path worth testing.
    seen: set[tuple[int, int, int]] = set()
    unique = []
    for sprite, x, y in items:
        if (id(sprite), x, y) not in seen:
            seen.add((id(sprite), x, y))
            unique.append((sprite, x, y))
    return unique


@pytest.mark.parametrize("seed", range(40))
# 0.1: a sixth of the draws are too large a change and drawn in full; 1.0: none is.
@pytest.mark.parametrize("full_fraction", [0.1, 1.0])
def test_a_walk_of_edits_gives_the_pixels_of_drawing_each_scene_in_full(
    seed: int, full_fraction: float, full_draws: list[int]
) -> None:
    rng = random.Random(seed)
    background = noise(rng, SIZE, "L")
    pool = sprites(rng, 8)
    scenes = Scenes(2, full_fraction)
    walks: list[list[Item]] = [[], []]  # two tables, one cache
    steps = 30
    for _ in range(steps):
        k = rng.randrange(2)
        walks[k] = edit(rng, walks[k], pool)
        got = scenes.draw(background, walks[k])
        assert got.tobytes() == draw_full(background, walks[k]).tobytes()
    # Half the draws above are the references: the scenes drew far fewer in full.
    assert full_draws[0] - steps < steps // 2


def test_shared_items_in_another_order_are_drawn_in_full(full_draws: list[int]) -> None:
    # Two overlapping sprites, listed the other way round: no item added or dropped, so no
    # box is dirty, yet the pixels where they overlap differ.
    background = Image.new("L", SIZE, 0)
    a, b = solid(10, (20, 20)), solid(20, (20, 20))
    far = solid(30, (4, 4))
    scenes = Scenes(4)
    scenes.draw(background, [(a, 5, 5), (b, 15, 15)])
    swapped: list[Item] = [(b, 15, 15), (a, 5, 5)]
    assert (
        draw_full(background, swapped).tobytes()
        != draw_full(background, [(a, 5, 5), (b, 15, 15)]).tobytes()
    )
    assert scenes.draw(background, swapped).tobytes() == draw_full(background, swapped).tobytes()
    # The same with a change elsewhere, so that some box is dirty but not the overlap.
    scenes.draw(background, [(a, 5, 5), (b, 15, 15)])
    moved: list[Item] = [(b, 15, 15), (a, 5, 5), (far, 55, 40)]
    assert scenes.draw(background, moved).tobytes() == draw_full(background, moved).tobytes()


def test_only_what_changed_is_drawn_again(full_draws: list[int]) -> None:
    background = Image.new("L", SIZE, 0)
    a, b = solid(10, (20, 20)), solid(20, (20, 20))
    scenes = Scenes(4)
    before = full_draws[0]
    scenes.draw(background, [(a, 5, 5)])
    scenes.draw(background, [(a, 5, 5), (b, 15, 15)])
    scenes.draw(background, [(b, 15, 15)])  # a dropped from under b: b drawn again
    scenes.draw(background, [(b, 15, 15), (a, 5, 5)])
    assert full_draws[0] - before == 1  # the first only
    got = scenes.draw(background, [(b, 14, 15), (a, 5, 5)])
    assert got.tobytes() == draw_full(background, [(b, 14, 15), (a, 5, 5)]).tobytes()


def test_sprites_reaching_past_the_image_and_the_dirty_box() -> None:
    rng = random.Random(5)
    background = noise(rng, SIZE, "L")
    big = Sprite(noise(rng, (40, 30), "L"), noise(rng, (40, 30), "1"), -20, -15)
    dot = solid(99, (3, 3))
    scenes = Scenes(4)
    corners = [(0, 0), (SIZE[0], 0), (0, SIZE[1]), (SIZE[0], SIZE[1]), (30, 20)]
    for x, y in corners:
        # The big sprite over a dot at each corner: dropping the dot dirties a small box
        # inside the big sprite, which must be drawn again clipped to that box.
        items: list[Item] = [(dot, x - 1, y - 1), (big, x, y)]
        scenes.draw(background, items)
        for now in ([(big, x, y)], [(big, x, y), (dot, x + 2, y + 2)]):
            assert scenes.draw(background, now).tobytes() == draw_full(background, now).tobytes()


def test_the_image_handed_out_is_not_the_kept_one() -> None:
    background = Image.new("L", SIZE, 0)
    items: list[Item] = [(solid(10, (20, 20)), 5, 5)]
    scenes = Scenes(4)
    first = scenes.draw(background, items)
    first.paste(200, (0, 0, *SIZE))  # as a caller draws marks and a panel on it
    assert scenes.draw(background, items).tobytes() == draw_full(background, items).tobytes()
    assert background.getextrema() == (0, 0)


def test_another_background_is_never_drawn_on() -> None:
    rng = random.Random(2)
    one, other = noise(rng, SIZE, "L"), noise(rng, SIZE, "L")
    items: list[Item] = [(solid(10, (20, 20)), 5, 5)]
    scenes = Scenes(4)
    scenes.draw(one, items)
    assert scenes.draw(other, items).tobytes() == draw_full(other, items).tobytes()


def test_cleared_scenes_are_drawn_in_full(full_draws: list[int]) -> None:
    background = Image.new("L", SIZE, 0)
    items: list[Item] = [(solid(10, (20, 20)), 5, 5)]
    scenes = Scenes(4)
    scenes.draw(background, items)
    scenes.clear()
    before = full_draws[0]
    scenes.draw(background, items)
    assert full_draws[0] == before + 1


def test_boxes_merged_cover_what_they_did_and_overlap_no_more() -> None:
    rng = random.Random(9)
    for _ in range(200):
        boxes = []
        for _ in range(rng.randint(0, 8)):
            x, y = rng.randint(0, 50), rng.randint(0, 50)
            boxes.append((x, y, x + rng.randint(1, 15), y + rng.randint(1, 15)))
        merged = merge_boxes(boxes)

        def inside(p: tuple[int, int], among: Sequence[tuple[int, int, int, int]]) -> bool:
            return any(x0 <= p[0] < x1 and y0 <= p[1] < y1 for x0, y0, x1, y1 in among)

        for x0, y0, x1, y1 in boxes:
            assert inside((x0, y0), merged) and inside((x1 - 1, y1 - 1), merged)
        for k, (a0, b0, a1, b1) in enumerate(merged):
            for c0, d0, c1, d1 in merged[k + 1 :]:
                assert not (a0 < c1 and c0 < a1 and b0 < d1 and d0 < b1)


def test_threads_drawing_at_once_each_get_their_own_pixels() -> None:
    rng = random.Random(3)
    background = noise(rng, SIZE, "L")
    pool = sprites(rng, 8)
    scenes = Scenes(3)
    walks = []
    for _ in range(4):
        items: list[Item] = []
        walk = []
        for _ in range(40):
            items = edit(rng, items, pool)
            walk.append(items)
        walks.append(walk)
    wrong: list[int] = []

    def table(walk: list[list[Item]]) -> Callable[[], None]:
        def run() -> None:
            for items in walk:
                if (
                    scenes.draw(background, items).tobytes()
                    != draw_full(background, items).tobytes()
                ):
                    wrong.append(1)

        return run

    threads = [threading.Thread(target=table(walk)) for walk in walks]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not wrong


@pytest.mark.parametrize("seed", range(12))
def test_scenes_kept_as_the_writers_canvases_give_the_pixels_of_drawing_each_in_full(
    seed: int, full_draws: list[int]
) -> None:
    """draw_on keeps the PNG writer's canvas itself as the scene (render.board_png): the
    caller then draws on its stale strip (a board's panel) and the writer encodes it and
    lends its buffers again; at two tables, some boards drawn on a copy (with marks)."""
    rng = random.Random(seed)
    width, height = SIZE
    stale = (0, height - 10, width, height)  # the panel: no item reaches it here
    background = noise(rng, SIZE, "P")
    pool = [Sprite(noise(rng, sp.image.size, "P"), sp.mask, sp.dx, sp.dy) for sp in sprites(rng, 8)]

    def inside(items: list[Item]) -> list[Item]:
        return [it for it in items if scene.item_box(it)[3] <= stale[1]]

    scenes = Scenes(2)
    walks: list[list[Item]] = [[], []]
    steps = 40
    for step in range(steps):
        k = rng.randrange(2)
        walks[k] = inside(edit(rng, walks[k], pool))
        out = encode.canvas(width, height)
        if step % 5 == 4:  # a board with marks: drawn on a kept copy, as before
            got = scenes.draw(background, walks[k], out)
        else:
            got = scenes.draw_on(background, walks[k], out, stale)
        assert got is out
        assert got.tobytes() == draw_full(background, walks[k]).tobytes(), step
        out.paste(rng.randint(0, 255), stale)  # the panel, other every time
        if step % 5 == 4:  # marks over the items: only on a board drawn on a copy
            out.paste(rng.randint(0, 255), (0, 0, 6, 6))
        drawn = out.tobytes()
        # The writer compares with the last board it encoded: a kept canvas drawn on
        # again would give it wrong bands.
        assert Image.open(io.BytesIO(encode.png_bytes(out))).tobytes() == drawn, step
    # The references above are not counted: the scenes drew few boards in full.
    assert full_draws[0] < steps // 2
    # Let go, every buffer is the writer's again: none held, the spare ones to lend.
    scenes.clear()
    rows = [r for r, _ in encode._previous.values()]
    rows += [r for spare in encode._free.values() for r in spare]
    assert rows and all(r.users == 0 for r in rows)
    assert encode._free.get(SIZE)
