"""ctest entry point of the Python tests: runs pytest on this directory, or
skips (exit 77, ctest's SKIP_RETURN_CODE) naming what is missing."""
import importlib.util
import sys
from pathlib import Path

missing = [name for name in ("numpy", "pytest") if importlib.util.find_spec(name) is None]
if missing:
    print(f"skipped: {sys.executable} lacks {', '.join(missing)} "
          "(Debian: python3-numpy python3-pytest; scripts/setup installs them)")
    sys.exit(77)

import pytest  # noqa: E402

sys.exit(pytest.main([str(Path(__file__).parent), "-q", "-p", "no:cacheprovider", *sys.argv[1:]]))
