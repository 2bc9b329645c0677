"""The §5.27 virtual clock: it moves only on advance; timers fire in due order. No real time."""
import asyncio

import toolnexus_kit as kit


def test_starts_at_zero_and_moves_only_on_advance():
    c = kit.VirtualClock()
    assert c.now() == 0 and c.now_ms() == 0
    assert c.advance(100) == 100
    assert c.advance(250) == 350  # §5.27's agent_clock example answers now 350
    assert c.now() == 0.35


def test_timers_fire_in_due_order_each_at_its_time():
    c, fired = kit.VirtualClock(), []
    c.call_later(0.3, lambda: fired.append(("c", c.now_ms())))
    c.call_later(0.1, lambda: fired.append(("a", c.now_ms())))
    c.call_later(0.1, lambda: fired.append(("b", c.now_ms())))  # a tie: in registration order
    late = c.call_later(0.2, lambda: fired.append(("x", c.now_ms())))
    late.cancel()
    assert c.live()
    c.advance(150)
    assert fired == [("a", 100), ("b", 100)] and c.now_ms() == 150
    c.advance(1000)
    assert fired == [("a", 100), ("b", 100), ("c", 300)] and not c.live()


def test_timers_due_in_one_advance_fire_by_due_time_not_registration():
    c, fired = kit.VirtualClock(), []
    c.call_later(0.3, lambda: fired.append(300))
    c.call_later(0.1, lambda: fired.append(100))
    c.call_later(0.2, lambda: fired.append(200))
    c.advance(500)
    assert fired == [100, 200, 300]


def test_a_timer_registered_while_firing_fires_in_the_same_advance_when_due():
    c, fired = kit.VirtualClock(), []
    c.call_later(0.1, lambda: c.call_later(0.1, lambda: fired.append(c.now_ms())))
    c.advance(500)
    assert fired == [200]


def test_sleep_resolves_when_the_clock_passes_it():
    c = kit.VirtualClock()

    async def main():
        task = asyncio.ensure_future(c.sleep(1.0))
        await asyncio.sleep(0)
        c.advance(999)
        await asyncio.sleep(0)
        assert not task.done()
        c.advance(1)
        await task
        return c.now_ms()
    assert asyncio.run(main()) == 1000
