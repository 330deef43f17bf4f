"""Tests of k3diff.wheels: pairing, kinds, comparators, provenance, native explanations."""
