"""``python -m bigboggle.services.migrations new "what changed"``: write the next schema revision."""

import sys

from . import main

sys.exit(main(sys.argv[1:]))
