"""``python -m render``: see :mod:`render.cli`."""

from render.cli import main

raise SystemExit(main())
