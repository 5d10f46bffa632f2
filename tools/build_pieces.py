"""Draw the pieces of the board images that the renderer ships and write them to
render/assets/pieces.bin (issue 50; render/prebuilt.py says why, render/pieces.py what).

    .venv/bin/python tools/build_pieces.py

Run it after changing how a board piece is drawn (tests/render/test_prebuilt.py fails until
then) and commit the file it writes.
"""

from __future__ import annotations

from render import pieces

if __name__ == "__main__":
    pieces.main()
