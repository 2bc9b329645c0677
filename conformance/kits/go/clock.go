package kit

import (
	"sort"
	"sync"
	"time"
)

// Timers makes the waits of the interpreters (`awaitCancel`) replaceable: real time in a driver,
// a virtual Clock in tests and in a port's §5.27 runtime.
type Timers interface {
	// After returns a channel closed once ms milliseconds have passed.
	After(ms int64) <-chan struct{}
}

// RealTime is Timers on the wall clock.
type RealTime struct{}

// After closes its channel after ms real milliseconds.
func (RealTime) After(ms int64) <-chan struct{} {
	ch := make(chan struct{})
	time.AfterFunc(time.Duration(ms)*time.Millisecond, func() { close(ch) })
	return ch
}

// Clock is the virtual clock of PROTOCOL.md §5.27: it starts at 0 and moves only when Advance
// says, firing the timers it passes in due order (equal due times in the order registered), so
// a port's injectable clock backed by it is deterministic. Safe for use by several goroutines.
type Clock struct {
	mu     sync.Mutex
	now    int64
	seq    int64
	timers []*clockTimer
}

type clockTimer struct {
	due, seq int64
	fire     func()
	stopped  bool
}

// NewClock returns a clock at 0.
func NewClock() *Clock { return &Clock{} }

// Now is the clock's time in milliseconds.
func (c *Clock) Now() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// AfterFunc calls fn once the clock has moved ms past now (at once, within the next Advance, when
// ms ≤ 0). fn runs on the goroutine calling Advance, with the clock reading its due time, and may
// register timers itself. The returned stop reports whether it prevented the call.
func (c *Clock) AfterFunc(ms int64, fn func()) (stop func() bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seq++
	t := &clockTimer{due: c.now + max(ms, 0), seq: c.seq, fire: fn}
	c.timers = append(c.timers, t)
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		was := !t.stopped // a fired timer is marked stopped too
		t.stopped = true
		return was
	}
}

// After returns a channel closed once the clock has moved ms past now (Timers).
func (c *Clock) After(ms int64) <-chan struct{} {
	ch := make(chan struct{})
	c.AfterFunc(ms, func() { close(ch) })
	return ch
}

// Sleep blocks until the clock has moved ms past now.
func (c *Clock) Sleep(ms int64) { <-c.After(ms) }

// Advance moves the clock ms forward (a negative ms counts as 0), stepping to each due timer in
// turn and firing it, and returns the new time.
func (c *Clock) Advance(ms int64) int64 {
	c.mu.Lock()
	target := c.now + max(ms, 0)
	c.mu.Unlock()
	for {
		c.mu.Lock()
		t := c.next(target)
		if t == nil {
			c.now = target
			c.mu.Unlock()
			return target
		}
		c.now = t.due
		t.stopped = true
		c.mu.Unlock()
		t.fire() // outside the lock: it may read the clock or register timers
	}
}

// Pending is the number of timers not yet fired or stopped.
func (c *Clock) Pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.prune()
	return len(c.timers)
}

// next removes and returns the earliest live timer due by target, or nil. Called with mu held.
func (c *Clock) next(target int64) *clockTimer {
	c.prune()
	sort.Slice(c.timers, func(i, j int) bool {
		a, b := c.timers[i], c.timers[j]
		return a.due < b.due || (a.due == b.due && a.seq < b.seq)
	})
	if len(c.timers) == 0 || c.timers[0].due > target {
		return nil
	}
	t := c.timers[0]
	c.timers = c.timers[1:]
	return t
}

// prune drops stopped timers. Called with mu held.
func (c *Clock) prune() {
	live := c.timers[:0]
	for _, t := range c.timers {
		if !t.stopped {
			live = append(live, t)
		}
	}
	c.timers = live
}
