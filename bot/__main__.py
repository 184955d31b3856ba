"""``python -m bot``: the ``orchard`` program, its signals held from the start like it
(:mod:`bot.launch`); the commands are in :mod:`bot.cli`."""

import sys

from bot.launch import main

sys.exit(main())
