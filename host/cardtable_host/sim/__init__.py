"""The sim room: the virtual table, the WebAssembly and rp2 boards (their JavaScript in vboard/
and rp2/, their host side here), the bots, the `sim>` prompt, the board and layout a game is
simulated on, power cuts replayed."""
