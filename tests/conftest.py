"""Suite-wide settings.

The garbage collector's generation-0 threshold is raised: the suite allocates many small
arrays and short-lived objects (hypothesis examples, pmfs), and with the default threshold
of 700 a tenth of the suite's time went to collections that free almost nothing.  Reference
counting still frees everything that is not in a cycle, at once.

The key that signs sweep-cache entries (``optmech.sweep``) lives in a temporary folder of the
test session (``OPTMECH_CACHE_KEY``, inherited by the commands the tests start), so the
suite never creates or reads the user's own key.
"""

import atexit
import gc
import os
import shutil
import tempfile

gc.set_threshold(50_000, 20, 20)

_KEY_FOLDER = tempfile.mkdtemp(prefix="optmech-tests-")
atexit.register(shutil.rmtree, _KEY_FOLDER, ignore_errors=True)
os.environ.setdefault("OPTMECH_CACHE_KEY", os.path.join(_KEY_FOLDER, "cache-key"))
