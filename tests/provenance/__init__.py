"""Tests of k3diff.provenance against hostile repositories: nothing runs, nothing steers."""
