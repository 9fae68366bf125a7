"""``python -m bigboggle``: the command line."""

from .cli import main

main()
