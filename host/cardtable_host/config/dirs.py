"""The user's data, cache and config folders for cardtable, as each system names them
(platformdirs: ~/.local/share, ~/.cache and ~/.config or the XDG_* variables on Linux,
~/Library/... on macOS, %LOCALAPPDATA% on Windows)."""
from __future__ import annotations

from pathlib import Path

import platformdirs

APP = "cardtable"


def data_dir() -> Path:
    """Where cardtable keeps what it made (the archive of games)."""
    return platformdirs.user_data_path(APP, appauthor=False)


def cache_dir() -> Path:
    """Where cardtable keeps what it can make again (flash images, npm packages)."""
    return platformdirs.user_cache_path(APP, appauthor=False)


def config_dir() -> Path:
    """Where the user's cardtable.toml lives."""
    return platformdirs.user_config_path(APP, appauthor=False)
