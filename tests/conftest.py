"""Test-suite settings shared by every file.

Hypothesis runs derandomized by default: the same examples on every run, so the suite
(and CI) is reproducible and a red run means a change broke something, not that a new
example turned up. `HYPOTHESIS_PROFILE=explore` searches at random instead (1,000 examples
where a test sets no count of its own): run it to look for new failures, and keep what it
finds as @example cases.
"""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("default", derandomize=True, deadline=None)
settings.register_profile("explore", derandomize=False, deadline=None, max_examples=1000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))
