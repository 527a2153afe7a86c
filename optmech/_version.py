"""The version of optmech (one place; read by packaging and by the sweep cache keys)."""

__version__ = "0.3.0"
