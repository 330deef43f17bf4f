"""Triage tests that sample real servers use `k3diff sample`'s fault server fixture."""

from sample.conftest import fault_server

__all__ = ["fault_server"]
