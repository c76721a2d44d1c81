"""python -m history: see history/cli.py."""
import sys

from .cli import main

sys.exit(main())
