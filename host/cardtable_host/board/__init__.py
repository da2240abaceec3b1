"""The board room: the serial link, finding and locking ports, installing images, the guided
first power-up (bringup)."""
