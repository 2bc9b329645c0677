package kit

import (
	"encoding/json"
	"testing"
)

// answered returns the named lists of rec as the JSON an answer would carry.
func answered(t *testing.T, rec *Records, lists ...string) string {
	t.Helper()
	a := Answer{}
	rec.AnswerInto(a, lists...)
	return js(t, a)
}

func TestWaitForAnswer(t *testing.T) {
	rec := NewRecords()
	fn, err := NewInterpreter(rec).WaitFor(json.RawMessage(`{"answer":{"data":{"b":1,"a":2}}}`))
	if err != nil {
		t.Fatal(err)
	}
	got := fn(PendingRequest{ID: "req-7", Kind: "approval", Prompt: "ok?"})
	// §7: {id: request.id, ok, data?, reason?}, ok defaulting to true.
	if js(t, got) != `{"id":"req-7","ok":true,"data":{"b":1,"a":2}}` {
		t.Fatalf("answer %s", js(t, got))
	}
	// §5.13: the Request with its own keys, absent optionals omitted.
	if a := answered(t, rec); a != `{"waitForCalls":[{"id":"req-7","kind":"approval","prompt":"ok?"}]}` {
		t.Fatalf("records %s", a)
	}
	no, _ := NewInterpreter(rec).WaitFor(json.RawMessage(`{"answer":{"ok":false,"reason":"denied"}}`))
	if got := no(PendingRequest{ID: "r"}); js(t, got) != `{"id":"r","ok":false,"reason":"denied"}` {
		t.Fatalf("refusal %s", js(t, got))
	}
}

func TestWaitForEchoRequestFlattens(t *testing.T) {
	fn, err := NewInterpreter(NewRecords()).WaitFor(json.RawMessage(`{"echoRequest":true}`))
	if err != nil {
		t.Fatal(err)
	}
	url := "https://example.test/x"
	got := fn(PendingRequest{ID: "e1", Kind: "input", Prompt: "Name?", URL: &url, Data: json.RawMessage(`{"schema":{"type":"object","b":"é"}}`)})
	// §7: data is the Request with primitive values, its own data as compact JSON text.
	want := `{"id":"e1","ok":true,"data":{"id":"e1","kind":"input","prompt":"Name?","url":"https://example.test/x","data":"{\"schema\":{\"type\":\"object\",\"b\":\"é\"}}"}}`
	if js(t, got) != want {
		t.Fatalf("got %s", js(t, got))
	}
	_, err = NewInterpreter(NewRecords()).WaitFor(json.RawMessage(`{"ask":true}`))
	wantKind(t, err, Unsupported, `"ask"`)
}

func TestSkillProvider(t *testing.T) {
	in := NewInterpreter(NewRecords())
	fn, err := in.SkillProvider(json.RawMessage(`{"skills":[{"name":"alpha","content":"A"},{"content":"no name"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	defs, err := fn()
	if err != nil || len(defs) != 2 || *defs[0].Name != "alpha" || *defs[0].Content != "A" || defs[1].Name != nil {
		t.Fatalf("defs %+v, %v", defs, err)
	}
	fail, _ := in.SkillProvider(json.RawMessage(`{"fail":"provider down"}`))
	if _, err := fail(); err == nil || err.Error() != "provider down" {
		t.Fatalf("fail: %v", err)
	}
}

func TestOnError(t *testing.T) {
	rec := NewRecords()
	fn, err := NewInterpreter(rec).OnError(json.RawMessage(`{"answer":"retry"}`))
	if err != nil {
		t.Fatal(err)
	}
	status, msg := 503, "connection refused"
	if fn(ErrorInfo{Status: &status, Attempt: 1, Retryable: true}) != "retry" || fn(ErrorInfo{Error: &msg, Attempt: 2}) != "retry" {
		t.Fatal("the fixed answer was not returned")
	}
	// §5.13: {status?, error?, attempt, retryable}.
	if a := answered(t, rec); a != `{"onErrorCalls":[{"status":503,"attempt":1,"retryable":true},{"error":"connection refused","attempt":2,"retryable":false}]}` {
		t.Fatalf("records %s", a)
	}
	_, err = NewInterpreter(rec).OnError(json.RawMessage(`{"answer":"maybe"}`))
	wantKind(t, err, BadRequest, "maybe")
}

func TestGenerateScript(t *testing.T) {
	rec := NewRecords()
	fn, err := NewInterpreter(rec).Generate(json.RawMessage(`{"script":[` +
		`{"toolCalls":[{"name":"get_weather","arguments":{"city":"Paris"}},{"id":"c2","name":"raw","arguments":"{\"x\":1}"}]},` +
		`{"fail":"model down"},` +
		`{"content":"It is sunny.","usage":{"prompt_tokens":24,"completion_tokens":14,"total_tokens":38}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	first, err := fn(map[string]any{"messages": []any{map[string]string{"role": "user", "content": "weather in Paris?"}}})
	if err != nil || len(first.ToolCalls) != 2 || first.ToolCalls[0].ID != nil || *first.ToolCalls[1].ID != "c2" {
		t.Fatalf("step 0: %+v, %v", first, err)
	}
	if first.ToolCalls[0].ArgumentsText() != `{"city":"Paris"}` || first.ToolCalls[1].ArgumentsText() != `{"x":1}` {
		t.Fatalf("arguments %q %q", first.ToolCalls[0].ArgumentsText(), first.ToolCalls[1].ArgumentsText())
	}
	if _, err := fn(nil); err == nil || err.Error() != "model down" {
		t.Fatalf("step 1: %v", err)
	}
	for i := 2; i < 4; i++ { // the last step again once the script is used up
		last, err := fn(nil)
		if err != nil || *last.Content != "It is sunny." || js(t, last.Usage) != `{"prompt_tokens":24,"completion_tokens":14,"total_tokens":38}` {
			t.Fatalf("call %d: %+v, %v", i, last, err)
		}
	}
	if a := answered(t, rec); a != `{"generateCalls":[{"messages":[{"content":"weather in Paris?","role":"user"}]},null,null,null]}` {
		t.Fatalf("records %s", a)
	}
	_, err = NewInterpreter(rec).Generate(json.RawMessage(`{"script":[{"content":"x","usage":{"prompt_tokens":1,"completion_tokens":1}}]}`))
	wantKind(t, err, BadRequest, "total_tokens")
	_, err = NewInterpreter(rec).Generate(json.RawMessage(`{"script":[{"content":"x","usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2,"cached":0}}]}`))
	wantKind(t, err, BadRequest, "cached")
}

func TestBodyTransform(t *testing.T) {
	in := NewInterpreter(NewRecords())
	set, err := in.BodyTransform(json.RawMessage(`{"set":{"temperature":0,"model":"m2"}}`))
	if err != nil {
		t.Fatal(err)
	}
	body := map[string]any{"model": "m1", "stream": false}
	if got := js(t, set(body)); got != `{"model":"m2","stream":false,"temperature":0}` {
		t.Fatalf("set: %s", got)
	}
	swap, _ := in.BodyTransform(json.RawMessage(`{"copy":{"model":"stream","stream":"model","absent":"seen"}}`))
	// §7: body[to] = body[from], null when from is absent; sources read as received.
	if got := js(t, swap(body)); got != `{"model":false,"seen":null,"stream":"m1"}` {
		t.Fatalf("copy: %s", got)
	}
	if js(t, body) != `{"model":"m1","stream":false}` {
		t.Fatal("the body was changed in place")
	}
}

func TestSeededStore(t *testing.T) {
	s, err := NewInterpreter(NewRecords()).Store(json.RawMessage(`{"seeded":{"t1":[{"role":"user","content":"q"}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := s.Get("t1"); !ok || string(got) != `[{"role":"user","content":"q"}]` {
		t.Fatalf("get: %s, %v", got, ok)
	}
	if _, ok := s.Get("t2"); ok {
		t.Fatal("an unknown id was found")
	}
	if err := s.Save("t2", []map[string]string{{"role": "assistant", "content": "a"}}); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Get("t2"); string(got) != `[{"content":"a","role":"assistant"}]` {
		t.Fatalf("saved %s", got)
	}
}

func TestOnMetricAndEvaluate(t *testing.T) {
	rec := NewRecords()
	in := NewInterpreter(rec)
	metric, err := in.OnMetric(json.RawMessage(`{"collect":true}`))
	if err != nil {
		t.Fatal(err)
	}
	eval, err := in.Evaluate(json.RawMessage(`{"decision":{"model":"jev-test","answers":{"move":{"type":"choice","choice":"left","probabilities":{"left":0.8,"right":0.2},"confidence":0.7}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	// §5.30's example values.
	questions := json.RawMessage(`{"move":{"type":"choice","instructions":"Pick a move","criteria":{"left":"turn away from the wall","right":"turn into the wall"}}}`)
	decision, err := eval(map[string]int{"hp": 3}, questions)
	if err != nil || string(decision) != `{"model":"jev-test","answers":{"move":{"type":"choice","choice":"left","probabilities":{"left":0.8,"right":0.2},"confidence":0.7}}}` {
		t.Fatalf("decision %s, %v", decision, err)
	}
	metric(json.RawMessage(`{"event":"classifier.evaluate","model":"jev-test","status":"ok","ms":3}`))
	want := `{"evaluateCalls":[{"state":{"hp":3},"questions":{"move":{"type":"choice","instructions":"Pick a move","criteria":{"left":"turn away from the wall","right":"turn into the wall"}}}}],` +
		`"metricEvents":[{"event":"classifier.evaluate","model":"jev-test","status":"ok","ms":3}]}`
	if a := answered(t, rec); a != want {
		t.Fatalf("records %s", a)
	}
	fail, _ := in.Evaluate(json.RawMessage(`{"fail":"no backend"}`))
	if _, err := fail(nil, nil); err == nil || err.Error() != "no backend" {
		t.Fatalf("fail: %v", err)
	}
	_, err = in.OnMetric(json.RawMessage(`{"collect":false}`))
	wantKind(t, err, BadRequest, "must be true")
}

func TestCompactOptionsFollowProtocolExample(t *testing.T) {
	in := NewInterpreter(NewRecords())
	// §5.26's example options.
	o, err := in.CompactOptions(json.RawMessage(`{"maxTokens":3,"keepTail":2,"countTokens":{"perMessage":1},"summarize":{"template":"summarized <N> messages"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if o.MaxTokens != 3 || *o.KeepTail != 2 || o.FlushToMemory {
		t.Fatalf("options %+v", o)
	}
	transcript := []json.RawMessage{
		json.RawMessage(`{"role":"system","content":"SOUL"}`), json.RawMessage(`{"role":"user","content":"q0"}`),
		json.RawMessage(`{"role":"assistant","content":"a0"}`), json.RawMessage(`{"role":"user","content":"q1"}`),
		json.RawMessage(`{"role":"assistant","content":"a1"}`),
	}
	if n := o.CountTokens(transcript); n != 5 {
		t.Fatalf("countTokens: %d", n)
	}
	if s := o.Summarize(transcript[1:3]); s != "summarized 2 messages" {
		t.Fatalf("summary %q", s)
	}
	if got := js(t, o.SummarizeCalls()); got != `[[{"role":"user","content":"q0"},{"role":"assistant","content":"a0"}]]` {
		t.Fatalf("summarizeCalls %s", got)
	}
	triple, _ := in.CompactOptions(json.RawMessage(`{"maxTokens":3,"summarize":{"text":"S"},"countTokens":{"perMessage":3}}`))
	if n := triple.CountTokens(transcript); n != 15 {
		t.Fatalf("countTokens perMessage 3: %d, want 15", n)
	}
	plain, _ := in.CompactOptions(json.RawMessage(`{"maxTokens":10,"summarize":{"text":"S"},"flushToMemory":true}`))
	if plain.Summarize(json.RawMessage(`[]`)) != "S" || plain.CountTokens != nil || plain.KeepTail != nil || !plain.FlushToMemory {
		t.Fatalf("options %+v", plain)
	}
	_, err = in.CompactOptions(json.RawMessage(`{"maxTokens":3,"summarize":{"text":"S"},"keepTial":1}`))
	wantKind(t, err, BadRequest, "keepTial") // §5.26: unknown option keys are bad_request
	_, err = in.CompactOptions(json.RawMessage(`{"maxTokens":3,"summarize":{"llm":"m"}}`))
	wantKind(t, err, Unsupported, `"llm"`)
}

func TestOnBudget(t *testing.T) {
	rec := NewRecords()
	in := NewInterpreter(rec)
	fn, err := in.OnBudget(json.RawMessage(`{"answer":"extend"}`))
	if err != nil || fn(map[string]string{"limit": "maxTurns"}) != "extend" {
		t.Fatalf("extend: %v", err)
	}
	if a := answered(t, rec); a != `{"onBudgetCalls":[{"limit":"maxTurns"}]}` {
		t.Fatalf("records %s", a)
	}
	_, err = in.OnBudget(json.RawMessage(`{"answer":"suspend"}`))
	wantKind(t, err, Unsupported, "suspend")
	_, err = in.OnBudget(json.RawMessage(`{"answer":"later"}`))
	wantKind(t, err, BadRequest, "later")
}

func TestRecordsPerCommandCapAndEnabledLists(t *testing.T) {
	rec := NewRecords()
	rec.Enable(HookCalls)
	for i := 0; i < RecordCap+5; i++ {
		rec.Add(HookCalls, i)
	}
	rec.Add(ToolCancels, map[string]any{"name": "t", "cancelled": false})
	if n := len(rec.List(HookCalls)); n != RecordCap {
		t.Fatalf("kept %d entries, want the cap %d", n, RecordCap)
	}
	a := Answer{}
	rec.AnswerInto(a)
	if _, has := a[ToolCancels]; has || len(a) != 1 {
		t.Fatalf("answered %v lists, want hookCalls only", len(a))
	}
	rec.Begin() // a new loop command: lists start empty, toolCancels stays
	if got := answered(t, rec, HookCalls, ToolCancels, MetricEvents); got != `{"hookCalls":[],"metricEvents":[],"toolCancels":[{"cancelled":false,"name":"t"}]}` {
		t.Fatalf("after Begin %s", got)
	}
	rec.ClearToolCancels() // at build
	if got := answered(t, rec, ToolCancels); got != `{"toolCancels":[]}` {
		t.Fatalf("after ClearToolCancels %s", got)
	}
	entry := map[string]any{"n": 1}
	rec.Add(HookCalls, entry)
	entry["n"] = 2 // the port mutates its value later: the record keeps the copy (§5.13)
	if got := answered(t, rec, HookCalls); got != `{"hookCalls":[{"n":1}]}` {
		t.Fatalf("records %s", got)
	}
}
