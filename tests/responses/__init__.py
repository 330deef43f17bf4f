"""Tests of k3diff responses: loaders, pairing, per-record diff, reports and the CLI."""
