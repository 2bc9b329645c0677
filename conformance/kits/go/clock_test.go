package kit

import (
	"strconv"
	"strings"
	"sync"
	"testing"
)

func TestClockStartsAtZeroAndMovesOnlyOnAdvance(t *testing.T) {
	c := NewClock()
	if c.Now() != 0 {
		t.Fatalf("starts at %d", c.Now())
	}
	if now := c.Advance(250); now != 250 || c.Now() != 250 { // §5.27's agent_clock example steps
		t.Fatalf("after 250: %d", now)
	}
	if now := c.Advance(100); now != 350 {
		t.Fatalf("after 100 more: %d, want 350", now)
	}
	if now := c.Advance(-5); now != 350 {
		t.Fatalf("a negative advance moved the clock to %d", now)
	}
}

func TestClockFiresInDueOrder(t *testing.T) {
	c := NewClock()
	var log []string
	at := func(name string) func() {
		return func() { log = append(log, name+"@"+strconv.FormatInt(c.Now(), 10)) }
	}
	c.AfterFunc(300, at("c"))
	c.AfterFunc(100, at("a"))
	c.AfterFunc(100, at("a2")) // same due time: in the order registered
	stop := c.AfterFunc(200, at("stopped"))
	c.AfterFunc(150, func() {
		log = append(log, "b@"+strconv.FormatInt(c.Now(), 10))
		c.AfterFunc(10, at("nested")) // due at 160, inside this advance
	})
	c.AfterFunc(1000, at("late"))
	if !stop() || stop() {
		t.Fatal("stop should report true once")
	}
	c.Advance(99)
	if len(log) != 0 {
		t.Fatalf("fired early: %v", log)
	}
	c.Advance(201) // to 300
	if got := strings.Join(log, " "); got != "a@100 a2@100 b@150 nested@160 c@300" {
		t.Fatalf("fired %s", got)
	}
	if c.Now() != 300 || c.Pending() != 1 {
		t.Fatalf("now %d, pending %d", c.Now(), c.Pending())
	}
	c.AfterFunc(0, at("now")) // due at once: fires on the next advance, even by 0
	c.Advance(0)
	if !strings.HasSuffix(strings.Join(log, " "), "now@300") {
		t.Fatalf("fired %v", log)
	}
}

func TestClockAfterIsSafeAcrossGoroutines(t *testing.T) {
	c := NewClock()
	const n = 50
	var wg sync.WaitGroup
	for i := 1; i <= n; i++ {
		wg.Add(1)
		go func(ms int64) {
			defer wg.Done()
			c.Sleep(ms)
		}(int64(i))
	}
	waitRegistered(c, n)
	c.Advance(n)
	wg.Wait() // every sleeper woke: none is left waiting
	if c.Pending() != 0 {
		t.Fatalf("%d timers left", c.Pending())
	}
}
