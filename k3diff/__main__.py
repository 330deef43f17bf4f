"""`python -m k3diff` runs the command-line interface."""

import sys

from k3diff.entry import main

sys.exit(main())
