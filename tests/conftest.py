"""Suite-wide settings.

The garbage collector's generation-0 threshold is raised: the suite allocates many small
arrays and short-lived objects (hypothesis examples, pmfs), and with the default threshold
of 700 a tenth of the suite's time went to collections that free almost nothing.  Reference
counting still frees everything that is not in a cycle, at once.
"""

import gc

gc.set_threshold(50_000, 20, 20)
