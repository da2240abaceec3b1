"""pytest setup: tests import their shared helpers as `support`, as they do on MicroPython."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
