"""Machine verification of the papers' closed forms (SymPy, mpmath, exact enumeration)."""
