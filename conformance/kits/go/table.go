package kit

import "fmt"

// Table holds a session's handles by id (toolkits, clients, servers, runtimes; PROTOCOL.md §3).
// It is not safe for concurrent use: the protocol sends one request at a time.
type Table[T any] struct {
	noun  string
	kind  string
	items map[string]T
}

// NewTable returns an empty table whose lookups of a missing id fail with kind, naming noun
// (NewTable[*Toolkit]("toolkit", kit.UnknownToolkit) answers `no toolkit "tk9"`, PROTOCOL.md §4).
func NewTable[T any](noun, kind string) *Table[T] {
	return &Table[T]{noun: noun, kind: kind, items: map[string]T{}}
}

// Put stores v under id and returns the handle it replaces, if any, for the caller to close.
func (t *Table[T]) Put(id string, v T) (old T, replaced bool) {
	old, replaced = t.items[id]
	t.items[id] = v
	return old, replaced
}

// Get returns the handle under id, or a Failure of the table's kind naming the id.
func (t *Table[T]) Get(id string) (T, error) {
	v, ok := t.items[id]
	if !ok {
		return v, Failf(t.kind, "no %s %q", t.noun, id)
	}
	return v, nil
}

// Delete forgets id and returns its handle, if any; deleting a missing id is no error (close is
// idempotent, PROTOCOL.md §5.10).
func (t *Table[T]) Delete(id string) (T, bool) {
	v, ok := t.items[id]
	delete(t.items, id)
	return v, ok
}

// Len is the number of handles held.
func (t *Table[T]) Len() int { return len(t.items) }

// Clear forgets every handle, calling closeFn (when not nil) on each first, for shutdown.
func (t *Table[T]) Clear(closeFn func(id string, v T)) {
	for id, v := range t.items {
		if closeFn != nil {
			closeFn(id, v)
		}
		delete(t.items, id)
	}
}

// String names the table for debugging.
func (t *Table[T]) String() string { return fmt.Sprintf("%s table (%d)", t.noun, len(t.items)) }
