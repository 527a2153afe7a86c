"""Developer tools for the optmech repository (not installed with the package)."""
