"""The installed version of bgfast (``bgfast.__version__``, ``bgfast --version``)."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

__all__ = ["__version__"]

try:
    __version__: str = version("bgfast")
    """The version of the installed distribution (the Rust crates' version, set by
    maturin), e.g. ``"0.1.0"``; ``"0+unknown"`` when run from a source tree without
    installing."""
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0+unknown"
