"""The shipped notices of the Rust crates linked into bgfast are those of Cargo.lock now."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parent.parent


def test_the_third_party_notices_are_current() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "third_party_notices.py"), "--check"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
