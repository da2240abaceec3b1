"""The tournament room: the director, its broker and wire, the reporters and the referee worker."""
