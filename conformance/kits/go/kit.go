// Package kit is the protocol side of a toolnexus conformance driver (conformance/PROTOCOL.md),
// written once: framing, `seq`, `hello`, `shutdown`, EOF and signals, the answer envelope and
// its error kinds, and `unsupported` for every command no handler is registered for. A driver
// registers one handler per command it supports; the rest is the port-specific part.
package kit

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"sync"
	"syscall"
	"unicode/utf8"
)

// Protocol is the protocol version this kit speaks (PROTOCOL.md §1).
const Protocol = 1

// Port names the port in `hello` (PROTOCOL.md §5.1); reports show it.
type Port struct {
	Name     string `json:"name"`
	Language string `json:"language"`
	Version  string `json:"version"`
}

// Handler answers one command: the fields of a success answer, or an error (a *Failure for a
// chosen kind; any other error is answered `internal`).
type Handler func(req *Request) (Answer, error)

// Driver is a protocol loop with its registered handlers.
type Driver struct {
	port       Port
	spec       string
	declared   []string
	handlers   map[string]Handler
	onShutdown []func()
	mu         sync.Mutex // held while a request is handled, so a signal's shutdown waits for it
	shutOnce   sync.Once
}

// New returns a driver for port that targets the SPEC version spec ("" leaves `spec` out).
func New(port Port, spec string) *Driver {
	return &Driver{port: port, spec: spec, handlers: map[string]Handler{}}
}

// Handle registers the handler of a command; registering one again replaces it. `hello` and
// `shutdown` are the kit's own (use OnShutdown to close the port's handles).
func (d *Driver) Handle(cmd string, h Handler) { d.handlers[cmd] = h }

// Implements declares the SPEC sections the port serves; `hello` lists those whose core commands
// (CoreCommands) are all registered.
func (d *Driver) Implements(sections ...string) { d.declared = append(d.declared, sections...) }

// OnShutdown adds a function run once at `shutdown`, EOF or SIGTERM/SIGINT, to close every
// handle the session holds (PROTOCOL.md §3).
func (d *Driver) OnShutdown(fn func()) { d.onShutdown = append(d.onShutdown, fn) }

// Sections returns the sections `hello` lists: the declared ones whose core commands are
// registered, each once, in the order declared.
func (d *Driver) Sections() []string {
	out := []string{}
	for _, s := range d.declared {
		ok := !slices.Contains(out, s)
		for _, cmd := range CoreCommands[s] {
			if _, has := d.handlers[cmd]; !has {
				ok = false
			}
		}
		if ok {
			out = append(out, s)
		}
	}
	return out
}

func (d *Driver) shutdown() {
	d.shutOnce.Do(func() {
		for _, fn := range d.onShutdown {
			fn()
		}
	})
}

// Serve reads requests from in and writes one answer line to out per request until EOF or
// `shutdown`. It returns nil then, and an error only when in or out fails.
func (d *Driver) Serve(in io.Reader, out io.Writer) error {
	r := bufio.NewReaderSize(in, 64*1024)
	w := bufio.NewWriterSize(out, 64*1024)
	for {
		line, err := r.ReadBytes('\n') // no line-length cap: a request can be many MiB
		if len(bytes.TrimSpace(line)) > 0 {
			d.mu.Lock()
			resp, stop := d.answer(line)
			d.mu.Unlock()
			if werr := writeLine(w, resp); werr != nil {
				return werr
			}
			if stop {
				d.shutdown()
				return nil
			}
		}
		if errors.Is(err, io.EOF) {
			d.shutdown() // EOF ends the session cleanly (PROTOCOL.md §3)
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// answer turns one non-blank line into its answer envelope; stop is true after `shutdown`.
func (d *Driver) answer(line []byte) (resp map[string]any, stop bool) {
	if !utf8.Valid(line) {
		return failure(nil, BadRequest, "request is not UTF-8"), false
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(line, &fields); err != nil || fields == nil {
		if err == nil {
			err = errors.New("a request is a JSON object")
		}
		return failure(nil, BadRequest, "request is not JSON: "+err.Error()), false
	}
	seq, hasSeq := fields["seq"] // copied as it came, error envelopes included (§2)
	if !hasSeq {
		seq = nil
	}
	req := &Request{Fields: fields}
	if err := req.Get("cmd", &req.Cmd); err != nil {
		return envelope(seq, nil, err), false
	}
	ans, err := d.dispatch(req)
	return envelope(seq, ans, err), req.Cmd == "shutdown" && err == nil
}

// dispatch runs the command's handler; a panic escaping it is answered `internal` (§11).
func (d *Driver) dispatch(req *Request) (ans Answer, err error) {
	defer func() {
		if p := recover(); p != nil {
			ans, err = nil, Failf(Internal, "panic: %v", p)
		}
	}()
	switch req.Cmd {
	case "hello":
		a := Answer{"protocol": Protocol, "port": d.port, "implements": d.Sections()}
		if d.spec != "" {
			a["spec"] = d.spec
		}
		return a, nil
	case "shutdown":
		d.shutdown()
		return Answer{}, nil
	}
	h, ok := d.handlers[req.Cmd]
	if !ok {
		return nil, Failf(Unsupported, "unknown command %q", req.Cmd)
	}
	return h(req)
}

func envelope(seq json.RawMessage, ans Answer, err error) map[string]any {
	if err != nil {
		var f *Failure
		if !errors.As(err, &f) {
			f = &Failure{Kind: Internal, Message: err.Error()}
		}
		return failure(seq, f.Kind, f.Message)
	}
	resp := map[string]any{}
	for k, v := range ans {
		resp[k] = v
	}
	resp["ok"] = true
	if seq != nil {
		resp["seq"] = seq
	}
	return resp
}

func failure(seq json.RawMessage, kind, message string) map[string]any {
	resp := map[string]any{"ok": false, "error": map[string]string{"kind": kind, "message": message}}
	if seq != nil {
		resp["seq"] = seq
	}
	return resp
}

// writeLine writes one compact JSON line and flushes it (§2). An answer that cannot be encoded
// (a handler returned a channel, say) is answered `internal` instead, keeping its seq.
func writeLine(w *bufio.Writer, resp map[string]any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(resp); err != nil {
		seq, _ := resp["seq"].(json.RawMessage)
		buf.Reset()
		if err := enc.Encode(failure(seq, Internal, "the answer is not JSON: "+err.Error())); err != nil {
			return err
		}
	}
	if _, err := w.Write(buf.Bytes()); err != nil { // Encode ends the line with '\n'
		return err
	}
	return w.Flush()
}

// Main runs the driver on the process's stdin and stdout and exits: os.Stdout is pointed at
// stderr first, so a stray fmt.Println never reaches the wire (§2), and SIGTERM or SIGINT closes
// the session's handles and exits 0, as EOF and `shutdown` do (§3).
func (d *Driver) Main() {
	wire := os.Stdout
	os.Stdout = os.Stderr
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- d.Serve(os.Stdin, wire) }()
	select {
	case err := <-done:
		if err != nil {
			fmt.Fprintln(os.Stderr, "driver:", err)
			os.Exit(1)
		}
	case <-sigs:
		if d.mu.TryLock() { // a handler stuck in the port must not keep the process alive
			d.shutdown()
		}
	}
	os.Exit(0)
}
