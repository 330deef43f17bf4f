"""Comparing two wheels entry by entry: pairing, kinds, proofs, details and findings."""
