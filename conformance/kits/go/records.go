package kit

import (
	"encoding/json"
	"strconv"
	"sync"
)

// The recorded lists of PROTOCOL.md §5.13, §5.25, §5.27 and §5.30, by the answer field they fill.
const (
	// HookCalls: every client hook invocation (§7 "Client hooks").
	HookCalls = "hookCalls"
	// MetricEvents: every onMetric record.
	MetricEvents = "metricEvents"
	// OnErrorCalls: every onError info.
	OnErrorCalls = "onErrorCalls"
	// GenerateCalls: every request of an in-process model.
	GenerateCalls = "generateCalls"
	// WaitForCalls: every §10 Request a waitFor received.
	WaitForCalls = "waitForCalls"
	// EvaluateCalls: every call of a custom classifier's evaluate.
	EvaluateCalls = "evaluateCalls"
	// OnBudgetCalls: every info a runtime's onBudget received (§5.27 agent_trace).
	OnBudgetCalls = "onBudgetCalls"
	// ToolCancels: every finished awaitCancel tool of the session (§5.25).
	ToolCancels = "toolCancels"
)

// RecordCap is the most entries a driver keeps per list (PROTOCOL.md §5.13).
const RecordCap = 1000

// Records holds what the host code the interpreters built observed, one list per answer field.
// Keep one per session (or one per client, to answer only that client's lists). Safe for use by
// the port's goroutines.
type Records struct {
	mu      sync.Mutex
	lists   map[string][]json.RawMessage
	enabled map[string]bool
	epoch   int // bumped by Begin: `replaceMessages` acts once per loop command
}

// NewRecords returns empty records with no list enabled.
func NewRecords() *Records {
	return &Records{lists: map[string][]json.RawMessage{}, enabled: map[string]bool{}}
}

// Enable marks a list as answered by AnswerInto; each interpreter enables its own list when it
// is built, so only the lists of installed seams are answered.
func (r *Records) Enable(list string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.enabled[list] = true
}

// Add appends a deep copy of entry to list, taken now as JSON (§5.13 "copied when they
// happen"), past RecordCap dropped. An entry that is not JSON is recorded as a string saying so,
// which the harness then shows in the failing comparison.
func (r *Records) Add(list string, entry any) {
	raw, err := marshal(entry)
	if err != nil {
		raw = json.RawMessage(strconv.Quote("unrecordable entry: " + err.Error()))
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.lists[list]) < RecordCap {
		r.lists[list] = append(r.lists[list], raw)
	}
}

// List returns a copy of one list's entries.
func (r *Records) List(list string) []json.RawMessage {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]json.RawMessage{}, r.lists[list]...)
}

// Begin starts a loop command (`run`, `stream`, `ask`, `evaluate`, …): every list but
// toolCancels starts empty again (§5.13), and `replaceMessages` may act once more.
func (r *Records) Begin() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for name := range r.lists {
		if name != ToolCancels {
			delete(r.lists, name)
		}
	}
	r.epoch++
}

// ClearToolCancels empties toolCancels; a driver calls it at each `build` (§5.25).
func (r *Records) ClearToolCancels() {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.lists, ToolCancels)
}

// AnswerInto writes into a the named lists, or every enabled list when none is named, each as a
// JSON array (empty when nothing was recorded). toolCancels is answered only when named
// (`serve_records`, §5.25).
func (r *Records) AnswerInto(a Answer, lists ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(lists) == 0 {
		for name := range r.enabled {
			lists = append(lists, name)
		}
	}
	for _, name := range lists {
		a[name] = append([]json.RawMessage{}, r.lists[name]...)
	}
}

func (r *Records) currentEpoch() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.epoch
}
