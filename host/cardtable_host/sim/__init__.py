"""The sim room: the virtual table, the WebAssembly and rp2 boards' host side, the bots, the
`sim>` prompt, the board and layout a game is simulated on, power cuts replayed."""
