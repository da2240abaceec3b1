"""The serve room: the hub, the web app and its pages, the archive, serving a board or a sim."""
