"""k3diff: artifact-diff and determinism forensics for inference-engine patches and release audits."""

__version__ = "0.1.0"
