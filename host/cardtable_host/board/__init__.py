"""The board room: the serial link, finding and locking ports, installing images."""
