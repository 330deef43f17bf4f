"""`python -m k3diff` runs the command-line interface."""

import sys

from k3diff.cli import main

sys.exit(main())
