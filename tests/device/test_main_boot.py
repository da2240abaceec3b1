"""Off the board, main.py boots the table on simulated hardware one step at a time (the virtual
board's way: a host calls main.step(i)), here on the SPI board playing Nexus. (Its own file: one
table configuration per MicroPython process keeps the test heap like the Pico's.)"""
from support import stepped

from simtable import BOARDS, collect, journal_lines, main_module, only_game, scratch


def emulator():
    """The PN532 emulator where it fits (see test_main_loop.py), else None: fake readers."""
    from support import MICROPYTHON

    if MICROPYTHON:
        import cardtable

        if not cardtable.__file__.endswith(".mpy"):
            return None
    from cardtable.sim import pn532_emu

    return pn532_emu


@stepped
def test_off_the_board_main_boots_the_simulated_table_step_by_step():
    yield from only_game("nexus")
    from cardtable.hal import FileStorage
    from cardtable.table.commands import save_config  # (not the controller: booting loads it)

    main = yield from main_module()
    root, keep = scratch()
    store = FileStorage(root)
    save_config(store, {"board": "pico-spi-4seat", "layout": "nexus"}, main.CONFIG)
    boot = main.booting(store, BOARDS, emulator())
    n = 0
    while True:
        try:
            next(boot)
        except StopIteration as done:
            ctl = done.value
            break
        n += 1
        yield
    assert n >= len(main._MODULES) and ctl.layout.name == "nexus" and ctl.board.name == "pico-spi-4seat"
    for code in ("AS", "7D"):  # the two trump indicators deal the hand
        ctl.hal.place("c", code)
        for _ in range(5):
            for _ in range(4):
                ctl.step()
            collect()
            yield
        ctl.hal.lift("c")
    # the board keeps the game's actions on flash, not in memory: the deal is journaled
    assert ctl.game.history == [] and not ctl.game.dealing
    from cardtable import record

    deal = record.parse_line(journal_lines(store)[-1], 2)
    assert deal["act"] == "deal" and deal["up"] == ["AS", "7D"] and deal["seq"] == 1
    assert keep is keep
