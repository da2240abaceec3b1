# host only: never imported on the board (simulated hardware: tools/firmware/boardfiles.py)
"""Simulated hardware in the device subset, for the virtual board and the device tests."""
# The PN532 emulator (pn532_emu, busfault with bus faults) runs on MicroPython and CPython; it is
# never frozen into the image nor copied to a board (boardfiles.py leaves host-only modules out).
