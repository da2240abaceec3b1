"""The drawing room: wiring and layout drawings of a board file."""
