"""Performance runs.  Each module ``benchmarks/<area>.py`` measures one claim as a ratio
against a baseline run in the same process and writes ``benchmarks/results/<area>.md``;
nothing here asserts a time."""
