// The Go starter driver: conformance/PROTOCOL.md on the Go kit against the toy toolkit in
// toy.go. It serves SPEC §0, §1 and §4 as far as a toolkit of extra tools goes, as the Python
// starter (conformance/ports/starter/driver.py) does, and the kit answers `unsupported` to the
// rest, so those scenarios are skipped, never failed. For your port, replace the toy.
package main

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"toolnexus.dev/conformance/kit"
)

// repr quotes as Python's repr does for a string, so the messages match the Python starter's.
func repr(s string) string {
	if strings.Contains(s, "'") && !strings.Contains(s, `"`) {
		return `"` + s + `"`
	}
	return "'" + strings.ReplaceAll(s, "'", `\'`) + "'"
}

// behave is PROTOCOL.md §7: what an extra tool's behaviour does on execute.
func behave(kind string, arg json.RawMessage, args json.RawMessage, ctx map[string]json.RawMessage) (any, error) {
	answer, hasAnswer := ctx["answer"]
	hasAnswer = hasAnswer && string(answer) != "null"
	switch kind {
	case "text":
		var out any
		err := json.Unmarshal(arg, &out)
		return out, err
	case "fail":
		var msg any
		if err := json.Unmarshal(arg, &msg); err != nil {
			return nil, err
		}
		if s, ok := msg.(string); ok {
			return nil, errors.New(s) // through the toolkit's ordinary error path (SPEC §6)
		}
		return nil, fmt.Errorf("%v", msg)
	}
	var opts map[string]json.RawMessage // suspend's own options
	if kind == "suspend" {
		if err := json.Unmarshal(arg, &opts); err != nil {
			return nil, err
		}
	}
	flag := func(key string) bool { var b bool; _ = json.Unmarshal(opts[key], &b); return b }
	if kind == "suspend" && (!hasAnswer || flag("always")) { // SPEC §10: a pending Request
		id := make([]byte, 16)
		if _, err := rand.Read(id); err != nil {
			return nil, err
		}
		req := map[string]any{"id": "req-" + hex.EncodeToString(id), "kind": "approval", "prompt": ""} // a fresh id per call
		for _, k := range []string{"kind", "prompt", "url", "data", "expiresAt"} {
			if v, ok := opts[k]; ok { // only when given
				req[k] = v
			}
		}
		return map[string]any{"output": req["prompt"], "isError": true, "metadata": map[string]any{"pending": req}}, nil
	}
	if kind == "suspend" && !flag("echoArgs") { // the retry after waitFor: the answer's data
		var ans map[string]json.RawMessage
		if err := json.Unmarshal(answer, &ans); err != nil {
			return nil, err
		}
		args = ans["data"]
		if args == nil {
			args = json.RawMessage("null")
		}
	}
	// echo, or the resolved retry: compact JSON, keys in the order received, non-ASCII as itself
	return kit.CompactJSON(args)
}

// extraTool is PROTOCOL.md §7 "Extra tools": its description, and the code its behaviour names.
func extraTool(raw json.RawMessage) (toyTool, error) {
	var spec map[string]json.RawMessage
	if err := json.Unmarshal(raw, &spec); err != nil {
		return toyTool{}, kit.Failf(kit.BadRequest, "an extra tool: %v", err)
	}
	kind, arg := "http", json.RawMessage(nil)
	if b, ok := spec["behaviour"]; ok {
		var beh map[string]json.RawMessage
		if err := json.Unmarshal(b, &beh); err != nil || len(beh) != 1 {
			return toyTool{}, kit.Fail(kit.BadRequest, "a behaviour has exactly one key")
		}
		for kind, arg = range beh {
		}
	}
	if kind != "text" && kind != "echo" && kind != "fail" && kind != "suspend" { // not panic, awaitCancel or HTTP tools (SPEC §7)
		return toyTool{}, kit.Fail(kit.Unsupported, "the extra tool behaviour "+repr(kind))
	}
	var name string
	if err := json.Unmarshal(spec["name"], &name); err != nil {
		return toyTool{}, kit.Failf(kit.BadRequest, "an extra tool's name: %v", err)
	}
	desc := toolDesc{Name: name, Description: json.RawMessage(`""`),
		InputSchema: json.RawMessage(`{"type":"object","properties":{}}`), Source: json.RawMessage(`"native"`)}
	for key, field := range map[string]*json.RawMessage{"description": &desc.Description, "inputSchema": &desc.InputSchema, "source": &desc.Source} {
		if v, ok := spec[key]; ok {
			*field = v
		}
	}
	fn := func(args json.RawMessage, ctx map[string]json.RawMessage) (any, error) {
		return behave(kind, arg, args, ctx)
	}
	return toyTool{desc: desc, fn: fn}, nil
}

var knownOptions = map[string]bool{"mcpConfig": true, "skillsDir": true, "skills": true, "skillProvider": true,
	"skillsFilter": true, "skillSampleLimit": true, "extraTools": true, "builtins": true, "agents": true,
	"waitFor": true, "disableTools": true, "disableSkills": true, "relayTools": true}

// build is PROTOCOL.md §5.2.
func build(req *kit.Request, kits *kit.Table[*toyToolkit]) (kit.Answer, error) {
	id, err := req.String("id")
	if err != nil {
		return nil, err
	}
	raw, ok := req.Raw("options")
	if !ok {
		return nil, kit.Fail(kit.BadRequest, "missing field \"options\"")
	}
	keys, err := kit.ObjectKeys(raw)
	if err != nil {
		return nil, kit.Failf(kit.BadRequest, "options: %v", err)
	}
	var opts map[string]json.RawMessage
	if err := json.Unmarshal(raw, &opts); err != nil {
		return nil, kit.Failf(kit.BadRequest, "options: %v", err)
	}
	for _, key := range keys { // §6: an unknown key is a typo; a known one the port lacks is unsupported
		if string(opts[key]) == "null" { // §6: null means absent
			delete(opts, key)
			continue
		}
		if !knownOptions[key] {
			return nil, kit.Fail(kit.BadRequest, "unknown option "+repr(key))
		}
		if key != "extraTools" && key != "disableTools" && key != "builtins" {
			return nil, kit.Fail(kit.Unsupported, "the option "+repr(key))
		}
	}
	if string(opts["builtins"]) != "false" { // absent means on (SPEC §4A), and the toy has none
		return nil, kit.Fail(kit.Unsupported, "builtin tools (SPEC §4A); only builtins: false")
	}
	var specs []json.RawMessage
	var disable []string
	if err := unmarshalOpt(opts["extraTools"], &specs); err != nil {
		return nil, err
	}
	if err := unmarshalOpt(opts["disableTools"], &disable); err != nil {
		return nil, err
	}
	tools := []toyTool{}
	for _, s := range specs {
		t, err := extraTool(s)
		if err != nil {
			return nil, err
		}
		tools = append(tools, t)
	}
	tk := newToyToolkit(tools, disable)
	kits.Put(id, tk) // replaces an earlier one
	names := []string{}
	for _, t := range tk.tools {
		names = append(names, t.Name)
	}
	sort.Strings(names) // byte order of UTF-8 is code point order
	return kit.Answer{"toolkit": id, "tools": tk.tools, "names": names,
		"statuses": map[string]string{"builtin": "disabled"}, "errors": map[string]string{}, "skills": []any{}}, nil
}

func unmarshalOpt(raw json.RawMessage, v any) error {
	if raw == nil {
		return nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return kit.Failf(kit.BadRequest, "options: %v", err)
	}
	return nil
}

func main() {
	d := kit.New(kit.Port{Name: "starter-go", Language: "go", Version: "0.1.0"}, "0.16.0")
	d.Implements("0", "1", "4") // §5.1: scenarios of sections not listed are skipped
	kits := kit.NewTable[*toyToolkit]("toolkit", kit.UnknownToolkit)
	d.OnShutdown(func() { kits.Clear(nil) })
	d.Handle("build", func(req *kit.Request) (kit.Answer, error) { return build(req, kits) })
	d.Handle("sanitize", func(req *kit.Request) (kit.Answer, error) {
		v, err := req.String("value")
		return kit.Answer{"value": sanitize(v)}, err
	})
	d.Handle("close", func(req *kit.Request) (kit.Answer, error) { // §5.10: idempotent; a closed id is forgotten
		id, err := req.String("toolkit")
		kits.Delete(id)
		return kit.Answer{}, err
	})
	withToolkit := func(req *kit.Request) (*toyToolkit, error) {
		id, err := req.String("toolkit")
		if err != nil {
			return nil, err
		}
		return kits.Get(id)
	}
	d.Handle("tools", func(req *kit.Request) (kit.Answer, error) {
		tk, err := withToolkit(req)
		if err != nil {
			return nil, err
		}
		return kit.Answer{"tools": tk.tools}, nil
	})
	d.Handle("execute", func(req *kit.Request) (kit.Answer, error) {
		tk, err := withToolkit(req)
		if err != nil {
			return nil, err
		}
		name, err := req.String("name")
		if err != nil {
			return nil, err
		}
		args, ok := req.Fields["args"] // absent means {}; an explicit null stays null, as in the Python starter
		if !ok {
			args = json.RawMessage("{}")
		}
		var ctx map[string]json.RawMessage
		if _, err := req.Opt("context", &ctx); err != nil {
			return nil, err
		}
		return kit.Answer{"result": tk.execute(name, args, ctx)}, nil
	})
	d.Handle("adapter", func(req *kit.Request) (kit.Answer, error) {
		tk, err := withToolkit(req)
		if err != nil {
			return nil, err
		}
		format, err := req.String("format")
		if err != nil {
			return nil, err
		}
		if format != "openai" && format != "anthropic" && format != "gemini" {
			return nil, kit.Fail(kit.BadRequest, "unknown adapter format "+repr(format))
		}
		return kit.Answer{"output": tk.adapter(format)}, nil
	})
	d.Main()
}
