"""The subcommands of `cardtable`: one module each (cli.py lists them)."""
