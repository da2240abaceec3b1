"""Undo from the rolling checkpoints (table/checkpoint.py, controller.SINCE_MAX): every undo of a
long seeded game gives back exactly the state before its action, in place, without a replay of
the journal while the checkpoint has actions after it; two undos in a row across a checkpoint
still do (the second from the journal)."""
import json

from support import stepped

from simtable import table


@stepped
def test_every_undo_gives_back_the_state_before_its_action():
    from cardtable.rng import Random
    from cardtable.table import controller

    t = yield from table("pico-i2c-2seat", "california-jacks", history=False)
    ctl = t.ctl
    rng = Random(11)
    played = fast = 0
    while played < 4 * controller.SINCE_MAX and not ctl.game.over:
        g = ctl.game
        a = g.bot_action(rng)
        if g.check(a):
            continue
        before = json.dumps(g.dump())
        assert ctl.play(a, "test")[0]
        t.listen()
        played += 1
        yield
        if played % 3 and len(ctl._since) != 1:
            continue  # (undo every third action, and every first one after a checkpoint)
        ckpt = ctl._ckpt
        ok, _ = ctl.undo("test")
        assert ok
        if ctl._replay is None:  # from the checkpoint: in place, the checkpoint kept
            fast += 1
            assert ctl.game is g and ctl._ckpt is ckpt
        ckpt = g = None
        yield
        while ctl._replay is not None:
            ctl.step()
            yield
        t.listen()
        assert json.dumps(ctl.game.dump()) == before, (played, a)
        before = None
        yield
        assert ctl.play(a, "test")[0]  # played again: the game goes on
        t.listen()
        yield
    assert played >= 2 * controller.SINCE_MAX and fast >= played // 4, (played, fast)


@stepped
def test_two_undos_in_a_row_across_a_checkpoint_give_back_the_state_two_actions_before():
    from cardtable.rng import Random
    from cardtable.table import controller

    t = yield from table("pico-i2c-2seat", "california-jacks", history=False)
    ctl = t.ctl
    rng = Random(12)
    states = []
    played = 0
    while not (ctl._since is not None and len(ctl._since) == 1 and played > controller.SINCE_MAX):
        g = ctl.game
        a = g.bot_action(rng)
        if g.check(a):
            continue
        states.append(json.dumps(g.dump()))
        del states[:-2]
        played += 1
        g = None
        yield
        assert ctl.play(a, "test")[0]
        t.listen()
        yield
    assert ctl.undo("test")[0]  # the first action after the checkpoint: back to it
    yield
    t.listen()
    assert json.dumps(ctl.game.dump()) == states[-1]
    yield
    assert ctl.undo("test")[0]  # before the checkpoint: from the journal
    while ctl._replay is not None:
        ctl.step()
        yield
    t.listen()
    assert json.dumps(ctl.game.dump()) == states[-2]
