"""``python -m bgfast``: the command-line interface."""

from __future__ import annotations

from bgfast.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
