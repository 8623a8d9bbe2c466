"""``python -m nbcert.cli``: the same as the ``nbcert`` command."""

import sys

from . import main

sys.exit(main())
