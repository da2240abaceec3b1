
import logging as _logging

# A library's loggers: quiet unless a command opens a log (--log FILE, config/logs.py).
_logging.getLogger("cardtable").addHandler(_logging.NullHandler())
