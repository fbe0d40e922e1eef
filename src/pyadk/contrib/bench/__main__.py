"""``python -m pyadk.contrib.bench``."""

import sys

from pyadk.contrib.bench.cli import main

sys.exit(main())
