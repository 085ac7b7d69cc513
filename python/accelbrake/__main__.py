"""``python -m accelbrake``: the command line (see :mod:`accelbrake.cli`)."""

import sys

from accelbrake.cli import main

if __name__ == "__main__":
    sys.exit(main())
