"""``python -m vidmem_ros.command``: the ``vidmem`` command on a robot's colcon install."""

import sys

from vidmem_ros.command.main import main

sys.exit(main())
