"""MicroPython side of tools/mpy/run.mjs: run a script as __main__ and guard calls from JS."""
import gc
import sys

# Statuses shared with mp.mjs.
OK = 0
RAISED = 1
EXITED = 2

_HIDE = '"/.mprun/'

# Preallocated slots: a failed call must not allocate on its way out (the heap may be full;
# the exception is printed in a later top-level call, after the GC has run).
_exc = [None]
_code = [0]


def setup(argv, path, cwd):
    """Fill sys.argv and sys.path (NUL-separated strings) and change directory."""
    import os

    sys.argv.clear()
    sys.argv.extend(argv.split("\0"))
    sys.path.clear()
    sys.path.extend(path.split("\0"))
    os.chdir(cwd)


def _exit_status(e):
    code = e.args[0] if e.args else None
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    sys.stderr.write(str(code) + "\n")
    return 1


def _guard(fn, arg):
    try:
        fn(arg)
        return OK
    except SystemExit as e:
        _code[0] = _exit_status(e)
        return EXITED
    except BaseException as e:  # noqa: B036 - everything becomes a report and exit 1
        _exc[0] = e
        return RAISED


def _exec_main(path):
    import __main__

    g = __main__.__dict__
    g["__file__"] = path
    with open(path) as f:
        code = compile(f.read(), path, "exec")
    exec(code, g)


def run_main(path):
    """Run the script at path with __name__ == '__main__'."""
    return _guard(_exec_main, path)


def call(name, arg):
    """Call the __main__ function name(arg), as one top-level call from JS."""
    import __main__

    return _guard(__main__.__dict__[name], arg)


def has_function(name):
    import __main__

    return callable(__main__.__dict__.get(name))


def exit_code():
    return _code[0]


def format_exception(e):
    """Traceback text of e without the runner's own frames."""
    import io

    buf = io.StringIO()
    sys.print_exception(e, buf)
    return "".join(line + "\n" for line in buf.getvalue().split("\n") if line and _HIDE not in line)


def report():
    """Print the pending exception to stderr; return its type name."""
    e = _exc[0]
    _exc[0] = None
    try:
        text = format_exception(e)
    except MemoryError:
        text = None
    if text is None:
        sys.print_exception(e, sys.stderr)
    else:
        sys.stderr.write(text)
    return type(e).__name__


def collect():
    gc.collect()
