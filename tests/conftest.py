"""Makes the helpers kept at the top of `tests/` (such as `oracle_fixtures`) importable by
basename from the test folders below it, which are not packages."""

import sys
from pathlib import Path

_TESTS = str(Path(__file__).parent)
if _TESTS not in sys.path:
    sys.path.insert(0, _TESTS)
