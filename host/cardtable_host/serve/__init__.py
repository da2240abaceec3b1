"""cardtable serve: the pages, the live feed, the archive."""
