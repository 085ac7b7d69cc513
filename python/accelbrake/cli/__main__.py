"""``python -m accelbrake.cli``: the command line."""

import sys

from accelbrake.cli import main

if __name__ == "__main__":
    sys.exit(main())
