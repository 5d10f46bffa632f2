"""Retained-mode drawing: a picture made of sprites pasted in order on a background, drawn
from a picture kept from before by drawing again only where the two differ.

A scene is a background and an ordered list of items ``(sprite, x, y)``: each sprite pasted
with its anchor at ``(x, y)`` (:meth:`render.sprites.Sprite.paste`), one after another.
Sprite masks are all or nothing (mode "1", or 0 and 255), so a pixel ends as the last item
covering it left it, or as the background where no item covers it.

To draw a new list from a kept one: items in one list and not in the other make their boxes
dirty. An item is its sprite object and its place (sprites are cached, and a kept scene
holds its sprites, so an ``id`` names the same pixels while the scene is kept). Outside the
dirty boxes a pixel is covered by the same items in both lists, so it ends the same if
those items come in the same order in both: that is checked for every item the two lists
share, else the picture is drawn in full. Each dirty box is drawn again from the
background with every item of the new list that reaches into it, in order. So a picture's
pixels are always those of pasting its list on the background, whatever was kept.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Sequence
from dataclasses import dataclass

from PIL import Image

from render import encode
from render.sprites import Sprite

#: A sprite and where its anchor goes.
Item = tuple[Sprite, int, int]
Box = tuple[int, int, int, int]
#: What makes two items the same: the sprite object and its place.
_Ident = tuple[int, int, int]
#: One item in this many is looked up in each kept scene to find the closest: enough to
#: tell a table's last board from another table's, in a few microseconds a scene (comparing
#: all of a late board's ~290 items takes ~30).
SAMPLE = 8


def item_box(item: Item) -> Box:
    """The pixels an item's sprite spans, ``(left, top, right, bottom)``, right and bottom
    excluded."""
    sprite, x, y = item
    x0, y0, x1, y1 = sprite.extent
    return (x + x0, y + y0, x + x1, y + y1)


def draw_full(
    background: Image.Image, items: Sequence[Item], out: Image.Image | None = None
) -> Image.Image:
    """``background`` with ``items`` pasted on it in order: on ``out`` (of its size) if
    given, else on a new image."""
    if out is None:
        img = background.copy()
    else:
        img = out
        img.paste(background)
    for sprite, x, y in items:
        sprite.paste(img, x, y)
    return img


def merge_boxes(boxes: Sequence[Box]) -> list[Box]:
    """Boxes covering the same pixels and more, none overlapping another: overlapping boxes
    become the box round them (one redraw instead of two of the pixels they share)."""
    merged: list[Box] = []
    for box in boxes:
        x0, y0, x1, y1 = box
        k = 0
        while k < len(merged):
            a0, b0, a1, b1 = merged[k]
            if a0 < x1 and x0 < a1 and b0 < y1 and y0 < b1:
                x0, y0, x1, y1 = min(x0, a0), min(y0, b0), max(x1, a1), max(y1, b1)
                merged.pop(k)
                k = 0  # the grown box may reach one passed over
            else:
                k += 1
        merged.append((x0, y0, x1, y1))
    return merged


@dataclass(slots=True, eq=False)  # kept scenes are told apart by identity, not pixels
class _Scene:
    background: Image.Image
    items: Sequence[Item]  # holds the sprites, so that their ids stay theirs while kept
    order: dict[_Ident, int]  # each item's place in ``items``, in the order of ``items``
    boxes: list[Box]  # each item's box
    image: Image.Image  # the items pasted on the background; never drawn on while kept
    #: The PNG writer's row buffer under ``image`` (render/encode.py: ``hold``), when the
    #: image is a canvas the caller drew more on below the items (``stale``): never drawn
    #: on again, only read, and given back when the scene is let go.
    held: object | None = None
    stale: Box | None = None


class Scenes:
    """The last scenes drawn (``size`` at most), each with its image, to draw the next
    from. Safe to use from several threads.

    A new scene is drawn from the kept one on the same background that shares the most
    items. When it keeps at least half of that one's items (at a table: the board a turn
    later, or a move taken back) it takes that one's place, drawn on its image; else (at
    another table) both are kept, and it is drawn on a copy.
    """

    def __init__(self, size: int, full_fraction: float = 0.5) -> None:
        self._size = size
        # Past this fraction of the image dirty, pasting every item is about as quick.
        self._full_fraction = full_fraction
        self._kept: list[_Scene] = []  # least recently drawn first
        self._lock = threading.Lock()

    def clear(self) -> None:
        """Forget every scene kept (for tests and benchmarks: as after a restart)."""
        with self._lock:
            dropped, self._kept = self._kept, []
        _let_go(dropped)

    def draw(
        self, background: Image.Image, items: Sequence[Item], out: Image.Image | None = None
    ) -> Image.Image:
        """A new image, the caller's to draw on: ``background`` with ``items`` pasted on it
        in order, the same pixels as :func:`draw_full`; ``out`` (of the background's size)
        if given, else a new image."""
        order = {(id(s), x, y): k for k, (s, x, y) in enumerate(items)}
        if len(order) < len(items):  # an item twice: the order check does not cover it
            return draw_full(background, items)
        boxes = [item_box(item) for item in items]
        image: Image.Image | None = None
        dirty: list[Box] = []
        with self._lock:  # kept images are only read, and only under the lock
            base = self._closest(background, order)
            changes = None if base is None else self._changes(base, order, boxes)
            if base is not None and changes is not None:
                dirty, dropped = changes
                if 2 * dropped <= len(base.order) and base.held is None:
                    self._kept.remove(base)  # this thread's alone to draw on now
                    image = base.image
                else:  # a held image is never drawn on: the writer may compare with it
                    image = base.image.copy()
                if base.stale is not None:
                    dirty.append(base.stale)
        if image is None:
            image = draw_full(background, items)
        else:
            _redraw(image, background, items, boxes, dirty)
        # Before it is kept: kept images are not drawn on.
        if out is None:
            copy = image.copy()
        else:
            copy = out
            copy.paste(image)
            copy.putpalette(image.getpalette() or [])
        self._keep(_Scene(background, tuple(items), order, boxes, image))
        return copy

    def draw_on(
        self, background: Image.Image, items: Sequence[Item], out: Image.Image, stale: Box
    ) -> Image.Image:
        """:meth:`draw` on ``out``, a canvas of the PNG writer (render/encode.py:
        ``canvas``), which is then kept as the scene itself instead of a copy of the scene:
        in a new process a first board touches 2 MB of memory less (~1.3 ms here). The
        caller may draw on ``out`` within ``stale`` alone (a board's panel), never where
        the items are; a scene drawn from this one draws ``stale`` again. A board with
        marks over its tiles is drawn with :meth:`draw`. Returns ``out``."""
        held = encode.hold(out)
        if held is None:  # not a canvas (or copied on a write): a kept copy as before
            return self.draw(background, items, out)
        order = {(id(s), x, y): k for k, (s, x, y) in enumerate(items)}
        if len(order) < len(items):
            encode.let_go(held)
            return self.draw(background, items, out)
        boxes = [item_box(item) for item in items]
        let_go: list[_Scene] = []
        with self._lock:  # kept images are only read, and only under the lock
            base = self._closest(background, order)
            changes = None if base is None else self._changes(base, order, boxes)
            if base is not None and changes is not None:
                dirty, dropped = changes
                out.paste(base.image)
                if 2 * dropped <= len(base.order):  # at a table: the board a turn later
                    self._kept.remove(base)
                    let_go.append(base)
        if base is None or changes is None:
            draw_full(background, items, out)
        else:
            _redraw(out, background, items, boxes, [*dirty, stale])
        out.putpalette(background.getpalette() or [])
        _let_go(let_go)
        self._keep(_Scene(background, tuple(items), order, boxes, out, held, stale))
        return out

    def board(
        self,
        background: Image.Image,
        items: Sequence[Item],
        out: Image.Image | None,
        panel: Box,
        *,
        marked: bool,
    ) -> Image.Image:
        """A board's image: :meth:`draw_on` ``out`` when the caller draws only ``panel``
        on it (below the board), else :meth:`draw` (no ``out``, or ``marked``: marks go
        over the tiles, so the scene is kept apart from the image)."""
        if out is not None and not marked:
            return self.draw_on(background, items, out, panel)
        return self.draw(background, items, out)

    def _keep(self, scene: _Scene) -> None:
        with self._lock:
            self._kept.append(scene)
            dropped = self._kept[: -self._size]
            del self._kept[: -self._size]
        _let_go(dropped)

    def _closest(self, background: Image.Image, order: dict[_Ident, int]) -> _Scene | None:
        """The kept scene on ``background`` that holds the most of a sample of the new
        scene's items, the most recent of those: at a table, its board of the turn before.
        (Which one only makes the drawing quicker or slower, never other pixels.)"""
        sample = list(itertools.islice(order, 0, None, SAMPLE))
        best, most = None, -1
        for scene in reversed(self._kept):
            if scene.background is background:
                held = sum(1 for ident in sample if ident in scene.order)
                if held > most:
                    best, most = scene, held
        return best

    def _changes(
        self, base: _Scene, order: dict[_Ident, int], boxes: list[Box]
    ) -> tuple[list[Box], int] | None:
        """Where the new scene differs from ``base`` (boxes inside the image, none
        overlapping another) and how many of ``base``'s items it drops; None where it is
        better drawn in full (the shared items' order differs, or too much changed)."""
        dirty: list[Box] = []
        last = -1
        for ident, k in base.order.items():  # in the old list's order
            j = order.get(ident)
            if j is None:
                dirty.append(base.boxes[k])
            elif j < last:  # a shared item moved before another: not the same pixels
                return None
            else:
                last = j
        dropped = len(dirty)
        dirty.extend(boxes[j] for ident, j in order.items() if ident not in base.order)
        width, height = base.image.size
        clipped = []
        for x0, y0, x1, y1 in merge_boxes(dirty):
            x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, width), min(y1, height)
            if x0 < x1 and y0 < y1:
                clipped.append((x0, y0, x1, y1))
        area = sum((x1 - x0) * (y1 - y0) for x0, y0, x1, y1 in clipped)
        if area > self._full_fraction * width * height:
            return None
        return clipped, dropped


def _let_go(scenes: Sequence[_Scene]) -> None:
    """Give the PNG writer back the row buffers of scenes no longer kept."""
    for scene in scenes:
        if scene.held is not None:
            encode.let_go(scene.held)


def _redraw(
    image: Image.Image,
    background: Image.Image,
    items: Sequence[Item],
    boxes: Sequence[Box],
    dirty: Sequence[Box],
) -> None:
    """Each of the ``dirty`` boxes of ``image`` drawn again: the background there, and
    every item reaching into it pasted in order."""
    for box in dirty:
        bx0, by0, bx1, by1 = box
        patch = background.crop(box)
        for (sprite, x, y), (x0, y0, x1, y1) in zip(items, boxes, strict=True):
            if x0 < bx1 and bx0 < x1 and y0 < by1 and by0 < y1:
                # Partly outside the patch: Pillow's paste clips sprite and mask alike.
                sprite.paste(patch, x - bx0, y - by0)
        image.paste(patch, (bx0, by0))
