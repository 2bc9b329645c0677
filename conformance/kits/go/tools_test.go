package kit

import (
	"context"
	"encoding/json"
	"errors"
	"runtime"
	"strings"
	"testing"
)

// js renders v as the kit's compact JSON, for comparing with the text of PROTOCOL.md's examples.
func js(t *testing.T, v any) string {
	t.Helper()
	raw, err := marshal(v)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	return string(raw)
}

// wantKind checks that err is a Failure of kind whose message contains part.
func wantKind(t *testing.T, err error, kind, part string) {
	t.Helper()
	var f *Failure
	if !errors.As(err, &f) || f.Kind != kind || !strings.Contains(f.Message, part) {
		t.Fatalf("want %s containing %q, got %v", kind, part, err)
	}
}

// body builds the body of an extra tool given as JSON, failing the test on an error.
func body(t *testing.T, in *Interpreter, tool string) ToolFunc {
	t.Helper()
	spec, err := ParseExtraTool(json.RawMessage(tool))
	if err != nil {
		t.Fatalf("ParseExtraTool: %v", err)
	}
	fn, err := in.ToolBody(spec)
	if err != nil {
		t.Fatalf("ToolBody: %v", err)
	}
	return fn
}

// fixedIDs makes request ids predictable: req-1, req-2, …
func fixedIDs(in *Interpreter) *Interpreter {
	n := 0
	in.NewID = func() string { n++; return "req-" + string(rune('0'+n)) }
	return in
}

func TestEchoKeepsKeyOrderAndNonASCII(t *testing.T) {
	in := NewInterpreter(NewRecords())
	fn := body(t, in, `{"name":"echo","behaviour":{"echo":true}}`)
	// PROTOCOL.md §5.4's first example.
	out, err := fn(ToolCall{Args: json.RawMessage(`{"z":1,"a":"é","n":[true,null]}`)})
	if err != nil || js(t, out.Result()) != `{"output":"{\"z\":1,\"a\":\"é\",\"n\":[true,null]}","isError":false}` {
		t.Fatalf("got %s, %v", js(t, out.Result()), err)
	}
	// §7: {"b":1,"2":2} echoes in the order received, not integer-like keys first.
	if out, _ := fn(ToolCall{Args: json.RawMessage(`{"b":1,"2":2}`)}); out.Output != `{"b":1,"2":2}` {
		t.Fatalf("got %s", out.Output)
	}
	if out, _ := fn(ToolCall{}); out.Output != `{}` {
		t.Fatalf("absent args echo as %s, want {}", out.Output)
	}
}

func TestTextFailAndTemplate(t *testing.T) {
	in := NewInterpreter(NewRecords())
	if out, err := body(t, in, `{"name":"t","behaviour":{"text":"T"}}`)(ToolCall{}); err != nil || out.Output != "T" || out.IsError {
		t.Fatalf("text: %+v, %v", out, err)
	}
	// §5.4's `boom` example: the native error path with exactly the message.
	if _, err := body(t, in, `{"name":"boom","behaviour":{"fail":"it broke"}}`)(ToolCall{}); err == nil || err.Error() != "it broke" {
		t.Fatalf("fail: %v", err)
	}
	tpl := body(t, in, `{"name":"q","behaviour":{"template":"data({{q}})"}}`)
	cases := map[string]string{
		`{"q":"x"}`:               "data(x)", // §7's example
		`{"q":{"b":1,"a":["é"]}}`: `data({"b":1,"a":["é"]})`,
		`{"q":7}`:                 "data(7)",
		`{"other":1}`:             "data()",
	}
	for args, want := range cases {
		if out, err := tpl(ToolCall{Args: json.RawMessage(args)}); err != nil || out.Output != want {
			t.Errorf("template with %s: %q, %v; want %q", args, out.Output, err, want)
		}
	}
	if got, _ := FillTemplate("{{ a }}-{{b}}-{{unclosed", json.RawMessage(`{"a":"1","b":"2"}`)); got != "1-2-{{unclosed" {
		t.Errorf("FillTemplate: %q", got)
	}
}

func TestPanicReachesTheCaller(t *testing.T) {
	fn := body(t, NewInterpreter(NewRecords()), `{"name":"crash","behaviour":{"panic":"kaboom"}}`)
	defer func() {
		if p := recover(); p != "kaboom" { // the port's containment, not the kit's, must see it
			t.Fatalf("recovered %v, want the panic \"kaboom\"", p)
		}
	}()
	_, _ = fn(ToolCall{})
	t.Fatal("the panic was caught inside the tool body")
}

func TestParts(t *testing.T) {
	fn := body(t, NewInterpreter(NewRecords()), `{"name":"p","behaviour":{"parts":{"output":"O","parts":[{"type":"image","mimeType":"image/png","data":"AAECAw=="}]}}}`)
	out, err := fn(ToolCall{})
	if err != nil || js(t, out.Result()) != `{"output":"O","isError":false,"parts":[{"type":"image","mimeType":"image/png","data":"AAECAw=="}]}` {
		t.Fatalf("got %s, %v", js(t, out.Result()), err)
	}
}

func TestSuspendFollowsProtocolExample(t *testing.T) {
	in := fixedIDs(NewInterpreter(NewRecords()))
	fn := body(t, in, `{"name":"approve","behaviour":{"suspend":{"prompt":"Approve the trade?","url":"https://example.test/approve"}}}`)
	args := json.RawMessage(`{"trade":42}`)
	out, err := fn(ToolCall{Args: args})
	// §5.4's second example, with the kit's id.
	if err != nil || js(t, out.Result()) != `{"output":"Approve the trade?","isError":true,"metadata":{"pending":{"id":"req-1","kind":"approval","prompt":"Approve the trade?","url":"https://example.test/approve"}}}` {
		t.Fatalf("got %s, %v", js(t, out.Result()), err)
	}
	if p, ok := out.Result().Pending(); !ok || p.ID != "req-1" {
		t.Fatalf("Pending() = %v, %v", p, ok)
	}
	if again, _ := fn(ToolCall{Args: args}); again.Pending == nil || again.Pending.ID != "req-2" {
		t.Fatalf("a second call needs a fresh id: %+v", again.Pending)
	}
	answer, err := ParseRequestAnswer(json.RawMessage(`{"id":"req-1","ok":true,"data":{"approved":true}}`))
	if err != nil {
		t.Fatal(err)
	}
	// §5.4's third example: the retry outputs answer.data as compact JSON.
	if out, err := fn(ToolCall{Args: args, Answer: answer}); err != nil || js(t, out.Result()) != `{"output":"{\"approved\":true}","isError":false}` {
		t.Fatalf("got %s, %v", js(t, out.Result()), err)
	}
	if out, _ := fn(ToolCall{Args: args, Answer: &RequestAnswer{ID: "req-1", OK: true}}); out.Output != "null" {
		t.Fatalf("no data: %q", out.Output)
	}
}

func TestSuspendOptions(t *testing.T) {
	in := fixedIDs(NewInterpreter(NewRecords()))
	answer := &RequestAnswer{ID: "x", OK: true, Data: json.RawMessage(`{"ignored":1}`)}
	always := body(t, in, `{"name":"a","behaviour":{"suspend":{"kind":"input","always":true,"data":{"b":1,"a":2},"expiresAt":"2030-01-01T00:00:00Z"}}}`)
	out, _ := always(ToolCall{Answer: answer})
	if js(t, out.Pending) != `{"id":"req-1","kind":"input","prompt":"","data":{"b":1,"a":2},"expiresAt":"2030-01-01T00:00:00Z"}` || !out.IsError || out.Output != "" {
		t.Fatalf("always: %s", js(t, out.Result()))
	}
	echo := body(t, in, `{"name":"e","behaviour":{"suspend":{"echoArgs":true}}}`)
	if out, _ := echo(ToolCall{Args: json.RawMessage(`{"b":1,"2":"é"}`), Answer: answer}); out.Output != `{"b":1,"2":"é"}` {
		t.Fatalf("echoArgs: %q", out.Output)
	}
	// §5.27's check_secret: answerText on an ok answer.
	secret := body(t, in, `{"name":"check_secret","behaviour":{"suspend":{"kind":"approval","prompt":"approve secret access?","answerText":"secret-token"}}}`)
	if out, _ := secret(ToolCall{Answer: answer}); out.Output != "secret-token" {
		t.Fatalf("answerText: %q", out.Output)
	}
	if out, _ := secret(ToolCall{Answer: &RequestAnswer{ID: "x", OK: false}}); out.Output != "null" {
		t.Fatalf("answerText on a refusal: %q", out.Output)
	}
}

// waitRegistered waits, without a time bound, until the clock holds n timers.
func waitRegistered(c *Clock, n int) {
	for c.Pending() < n {
		runtime.Gosched()
	}
}

func TestAwaitCancelOnTheVirtualClock(t *testing.T) {
	rec := NewRecords()
	in := NewInterpreter(rec)
	clock := NewClock()
	in.Timers = clock
	fn := body(t, in, `{"name":"slow","behaviour":{"awaitCancel":{}}}`)
	done := make(chan Outcome)
	go func() { out, _ := fn(ToolCall{Ctx: context.Background()}); done <- out }()
	waitRegistered(clock, 1)
	clock.Advance(AwaitCancelDefaultMs - 1) // §7: the default bound is 10000 ms
	if clock.Pending() != 1 {
		t.Fatal("the wait ended before its bound")
	}
	clock.Advance(1)
	if out := <-done; out.Output != "not cancelled" {
		t.Fatalf("got %q", out.Output)
	}
	ctx, cancel := context.WithCancel(context.Background())
	quick := body(t, in, `{"name":"cancellable","behaviour":{"awaitCancel":{"ms":50}}}`)
	go func() { out, _ := quick(ToolCall{Ctx: ctx}); done <- out }()
	cancel()
	if out := <-done; out.Output != "cancelled" {
		t.Fatalf("got %q", out.Output)
	}
	a := Answer{}
	rec.AnswerInto(a, ToolCancels)
	if got := js(t, a); got != `{"toolCancels":[{"name":"slow","cancelled":false},{"name":"cancellable","cancelled":true}]}` {
		t.Fatalf("records %s", got)
	}
}

func TestToolBodyRefusals(t *testing.T) {
	in := NewInterpreter(NewRecords())
	spec, err := ParseExtraTool(json.RawMessage(`{"name":"x","behaviour":{"explode":true}}`))
	if err != nil {
		t.Fatal(err)
	}
	_, err = in.ToolBody(spec)
	wantKind(t, err, Unsupported, `"explode"`) // a behaviour the kit does not know, named
	_, err = ParseExtraTool(json.RawMessage(`{"name":"x","behaviour":{"text":"a","echo":true}}`))
	wantKind(t, err, BadRequest, "exactly one key")
	_, err = ParseExtraTool(json.RawMessage(`{"name":"x"}`))
	wantKind(t, err, BadRequest, "exactly one of")
	_, err = ParseExtraTool(json.RawMessage(`{"name":"x","behavior":{"echo":true}}`))
	wantKind(t, err, BadRequest, "behavior")
	spec, _ = ParseExtraTool(json.RawMessage(`{"name":"x","behaviour":{"echo":false}}`))
	_, err = in.ToolBody(spec)
	wantKind(t, err, BadRequest, "must be true")
}

func TestExtraToolDefaultsAndHTTPView(t *testing.T) {
	spec, err := ParseExtraTool(json.RawMessage(`{"name":"e","behaviour":{"echo":true}}`))
	if err != nil || spec.Description != "" || string(spec.InputSchema) != `{"type":"object","properties":{}}` || spec.Source != "native" {
		t.Fatalf("defaults: %+v, %v", spec, err)
	}
	// features/http.feature's get_user: method and url only.
	spec, err = ParseExtraTool(json.RawMessage(`{"name":"get_user","description":"Fetch a user","http":{"method":"GET","url":"http://127.0.0.1:9/users/{id}"}}`))
	if err != nil || spec.HTTP == nil || spec.Behaviour != nil {
		t.Fatalf("http: %+v, %v", spec, err)
	}
	h := spec.HTTP
	if h.Method != "GET" || h.URL != "http://127.0.0.1:9/users/{id}" || h.Timeout != 30000 || strings.Join(h.Keys, ",") != "method,url" || spec.Source != "http" {
		t.Fatalf("http view: %+v", h)
	}
	spec, _ = ParseExtraTool(json.RawMessage(`{"name":"s","http":{"url":"u","query":["page","q"],"body":"form","timeout":300,"resultMode":"status+text","headers":{"X-Key":"k-${V}"}}}`))
	h = spec.HTTP
	if strings.Join(h.Query, ",") != "page,q" || h.Body != "form" || h.Timeout != 300 || h.ResultMode != "status+text" || h.Headers["X-Key"] != "k-${V}" {
		t.Fatalf("http view: %+v", h)
	}
	if _, err := NewInterpreter(NewRecords()).ToolBody(spec); err == nil {
		t.Fatal("an HTTP tool got a body")
	}
}

func TestRequestIDsAreFresh(t *testing.T) {
	in := NewInterpreter(NewRecords())
	a, b := in.NewID(), in.NewID()
	if a == b || !strings.HasPrefix(a, "req-") || len(a) < 6 {
		t.Fatalf("ids %q, %q", a, b)
	}
}
