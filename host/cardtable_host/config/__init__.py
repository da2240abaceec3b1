"""Where cardtable keeps things (dirs) and what the user set once (the cardtable.toml file)."""
