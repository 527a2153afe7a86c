import sys

from optmech.cli import main

sys.exit(main())
