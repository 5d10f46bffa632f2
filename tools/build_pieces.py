"""Draw the pieces of the board images and write the file render/prebuilt.py loads them
from (issue 50; render/prebuilt.py says where it goes and why, render/pieces.py what):

    .venv/bin/python tools/build_pieces.py [PATH]     # the same as python -m render pieces

Without PATH: to $GENIAL_RENDER_PIECES if set, else render/assets/pieces.bin if that folder
is writable, else the per-user cache. The file is built, never committed (.gitignore).
"""

from __future__ import annotations

import sys
from pathlib import Path

from render import pieces

if __name__ == "__main__":
    raise SystemExit(pieces.main(Path(sys.argv[1]) if len(sys.argv) > 1 else None))
