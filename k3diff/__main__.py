"""`python -m k3diff` runs the command-line interface."""

from k3diff.cli import main

main()
