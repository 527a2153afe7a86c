"""Lazy re-exports for package ``__init__`` modules: :func:`lp_models._lazy.lazy_exports`
(the lowest layer holds it, so that :mod:`lp_models` uses it too)."""

from lp_models._lazy import lazy_exports

__all__ = ["lazy_exports"]
