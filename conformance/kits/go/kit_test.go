package kit

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"testing/iotest"
)

// testDriver registers sanitize (echoing its value) and a few handlers that fail on purpose.
func testDriver(shutdowns *int) *Driver {
	d := New(Port{Name: "test", Language: "go", Version: "0"}, "0.16.0")
	d.Implements("0", "1")
	d.Handle("sanitize", func(r *Request) (Answer, error) {
		v, err := r.String("value")
		return Answer{"value": v}, err
	})
	d.Handle("plainerr", func(*Request) (Answer, error) { return nil, errors.New("it broke") })
	d.Handle("panics", func(*Request) (Answer, error) { panic("kaboom") })
	d.OnShutdown(func() { *shutdowns++ })
	return d
}

// serve runs the driver over input and returns each answer line parsed.
func serve(t *testing.T, d *Driver, in io.Reader) []map[string]any {
	t.Helper()
	var out bytes.Buffer
	if err := d.Serve(in, &out); err != nil {
		t.Fatalf("Serve: %v", err)
	}
	var answers []map[string]any
	for _, line := range strings.SplitAfter(out.String(), "\n") {
		if line == "" {
			continue
		}
		if !strings.HasSuffix(line, "\n") || strings.Count(line, "\n") != 1 {
			t.Fatalf("not one line per answer: %q", line)
		}
		var a map[string]any
		if err := json.Unmarshal([]byte(line), &a); err != nil {
			t.Fatalf("answer is not JSON: %q", line)
		}
		answers = append(answers, a)
	}
	return answers
}

func errorOf(t *testing.T, a map[string]any) (kind, message string) {
	t.Helper()
	if a["ok"] != false {
		t.Fatalf("want an error envelope, got %v", a)
	}
	e, _ := a["error"].(map[string]any)
	kind, _ = e["kind"].(string)
	message, _ = e["message"].(string)
	return kind, message
}

func TestSplitReadsMakeOneRequest(t *testing.T) {
	n := 0
	in := iotest.OneByteReader(strings.NewReader(`{"cmd":"sanitize","value":"a b","seq":3}` + "\n"))
	got := serve(t, testDriver(&n), in)
	if len(got) != 1 || got[0]["value"] != "a b" || got[0]["seq"] != 3.0 || got[0]["ok"] != true {
		t.Fatalf("got %v", got)
	}
}

func TestHugeLine(t *testing.T) {
	n := 0
	big := strings.Repeat("x", 6<<20) // 6 MiB, far past bufio.Scanner's 64 KiB default
	in := strings.NewReader(`{"cmd":"sanitize","seq":1,"value":"` + big + `"}` + "\n")
	got := serve(t, testDriver(&n), in)
	if len(got) != 1 || got[0]["value"] != big {
		t.Fatalf("the huge value did not come back whole (%d answers)", len(got))
	}
}

func TestBadUTF8IsABadRequestWithoutSeq(t *testing.T) {
	n := 0
	in := strings.NewReader("{\"cmd\":\"sanitize\",\"seq\":1,\"value\":\"\xff\xfe\"}\n" +
		`{"cmd":"sanitize","seq":2,"value":"next"}` + "\n")
	got := serve(t, testDriver(&n), in)
	if len(got) != 2 {
		t.Fatalf("want 2 answers, got %v", got)
	}
	if kind, _ := errorOf(t, got[0]); kind != BadRequest {
		t.Fatalf("kind %q", kind)
	}
	if _, has := got[0]["seq"]; has {
		t.Fatalf("an unparseable line has no seq to copy (PROTOCOL.md §2): %v", got[0])
	}
	if got[1]["value"] != "next" || got[1]["seq"] != 2.0 {
		t.Fatalf("the driver did not go on reading: %v", got[1])
	}
}

func TestNotJSONAndNotAnObject(t *testing.T) {
	n := 0
	got := serve(t, testDriver(&n), strings.NewReader("not json\n[1,2]\n"))
	for _, a := range got {
		if kind, msg := errorOf(t, a); kind != BadRequest || !strings.HasPrefix(msg, "request is not JSON: ") {
			t.Fatalf("got %v", a)
		}
	}
	if len(got) != 2 {
		t.Fatalf("want 2 answers, got %d", len(got))
	}
}

func TestBlankLinesAreIgnored(t *testing.T) {
	n := 0
	got := serve(t, testDriver(&n), strings.NewReader("\n  \r\n\t\n"+`{"cmd":"sanitize","seq":1,"value":"v"}`+"\n\n"))
	if len(got) != 1 || got[0]["seq"] != 1.0 {
		t.Fatalf("got %v", got)
	}
}

func TestLastLineWithoutNewlineAndEOF(t *testing.T) {
	n := 0
	got := serve(t, testDriver(&n), strings.NewReader(`{"cmd":"sanitize","seq":1,"value":"v"}`))
	if len(got) != 1 || got[0]["value"] != "v" {
		t.Fatalf("got %v", got)
	}
	if n != 1 {
		t.Fatalf("EOF ran the shutdown hooks %d times, want 1", n)
	}
}

func TestUnregisteredCommandIsUnsupported(t *testing.T) {
	n := 0
	got := serve(t, testDriver(&n), strings.NewReader(`{"cmd":"transmogrify","toolkit":"tk1","seq":5}`+"\n"))
	kind, msg := errorOf(t, got[0])
	if kind != Unsupported || msg != `unknown command "transmogrify"` || got[0]["seq"] != 5.0 {
		t.Fatalf("got %v", got[0]) // the wording of PROTOCOL.md §4's example
	}
}

func TestErrorKinds(t *testing.T) {
	n := 0
	in := strings.NewReader(`{"seq":1}` + "\n" + `{"cmd":"sanitize","seq":2}` + "\n" +
		`{"cmd":"plainerr","seq":3}` + "\n" + `{"cmd":"panics","seq":4}` + "\n" + `{"cmd":"sanitize","seq":5,"value":7}` + "\n")
	got := serve(t, testDriver(&n), in)
	want := []string{BadRequest, BadRequest, Internal, Internal, BadRequest}
	for i, a := range got {
		if kind, _ := errorOf(t, a); kind != want[i] || a["seq"] != float64(i+1) {
			t.Fatalf("answer %d: got %v, want kind %s with seq %d", i, a, want[i], i+1)
		}
	}
	if len(got) != len(want) {
		t.Fatalf("got %d answers", len(got))
	}
}

func TestHelloListsOnlySectionsWhoseCommandsAreRegistered(t *testing.T) {
	n := 0
	got := serve(t, testDriver(&n), strings.NewReader(`{"cmd":"hello","protocol":1,"seq":0}`+"\n"))
	a := got[0]
	if a["protocol"] != 1.0 || a["spec"] != "0.16.0" || a["seq"] != 0.0 {
		t.Fatalf("got %v", a)
	}
	// "0" and "1" are declared, but their core commands build, tools and execute are not registered.
	if impl, _ := json.Marshal(a["implements"]); string(impl) != `[]` {
		t.Fatalf("implements %s", impl)
	}
	if port, _ := json.Marshal(a["port"]); string(port) != `{"language":"go","name":"test","version":"0"}` { // re-marshalled: sorted keys
		t.Fatalf("port %s", port)
	}
}

// TestHelloSectionsRule checks the lead's rule: a declared section is listed when every core
// command of it is registered, a section outside the table whenever it is declared.
func TestHelloSectionsRule(t *testing.T) {
	d := New(Port{Name: "t", Language: "go", Version: "0"}, "")
	d.Implements("0", "1", "4", "7F", "8", "99", "4")
	ok := func(*Request) (Answer, error) { return Answer{}, nil }
	for _, cmd := range []string{"build", "tools", "execute", "client"} { // not compact, not run
		d.Handle(cmd, ok)
	}
	if got := strings.Join(d.Sections(), ","); got != "0,1,4,99" {
		t.Fatalf("sections %s, want 0,1,4,99", got)
	}
	d.Handle("compact", ok)
	d.Handle("run", ok)
	if got := strings.Join(d.Sections(), ","); got != "0,1,4,7F,8,99" {
		t.Fatalf("sections %s, want 0,1,4,7F,8,99", got)
	}
}

func TestShutdownAnswersAndStopsReading(t *testing.T) {
	n := 0
	in := strings.NewReader(`{"cmd":"shutdown","seq":9}` + "\n" + `{"cmd":"sanitize","seq":10,"value":"v"}` + "\n")
	got := serve(t, testDriver(&n), in)
	if len(got) != 1 || got[0]["ok"] != true || got[0]["seq"] != 9.0 || len(got[0]) != 2 {
		t.Fatalf("got %v", got)
	}
	if n != 1 {
		t.Fatalf("shutdown ran the hooks %d times, want 1", n)
	}
}

func TestTableNamesTheMissingId(t *testing.T) {
	tab := NewTable[int]("toolkit", UnknownToolkit)
	tab.Put("tk1", 1)
	if _, err := tab.Get("tk9"); err.Error() != `unknown_toolkit: no toolkit "tk9"` {
		t.Fatalf("got %v", err)
	}
	if old, replaced := tab.Put("tk1", 2); !replaced || old != 1 {
		t.Fatal("Put did not hand back the replaced handle")
	}
	tab.Delete("tk1")
	tab.Delete("tk1") // idempotent
	if tab.Len() != 0 {
		t.Fatal("Delete kept the handle")
	}
}

func TestCompactJSON(t *testing.T) {
	cases := map[string]string{
		// PROTOCOL.md §5.4's echo example, whitespace added
		`{"z": 1, "a": "é", "n": [true, null]}`: `{"z":1,"a":"é","n":[true,null]}`,
		`{"b":1,"2":2}`:                         `{"b":1,"2":2}`, // §7: received order, not integer keys first
		`{"a":"\u00e9<>&\u2028"}`:               "{\"a\":\"é<>&\u2028\"}",
		`["\u0001\n\"\\"]`:                      `["\u0001\n\"\\"]`,
		`{}`:                                    `{}`,
		`null`:                                  `null`,
	}
	for in, want := range cases {
		got, err := CompactJSON(json.RawMessage(in))
		if err != nil || got != want {
			t.Errorf("CompactJSON(%s) = %s, %v; want %s", in, got, err, want)
		}
	}
	if _, err := CompactJSON(json.RawMessage(`{"a":1} 2`)); err == nil {
		t.Error("trailing data accepted")
	}
}

func TestObjectKeysKeepOrder(t *testing.T) {
	keys, err := ObjectKeys(json.RawMessage(`{"z":{"y":1},"a":[1],"m":null}`))
	if err != nil || strings.Join(keys, ",") != "z,a,m" {
		t.Fatalf("got %v, %v", keys, err)
	}
}

// TestMain lets the test binary act as a driver process for the signal test.
func TestMain(m *testing.M) {
	if os.Getenv("KIT_TEST_DRIVER") == "1" {
		d := New(Port{Name: "t", Language: "go", Version: "0"}, "")
		d.OnShutdown(func() { os.Stderr.WriteString("closed every handle\n") })
		d.Handle("print", func(*Request) (Answer, error) {
			os.Stdout.WriteString("a stray print\n") // must land on stderr, not the wire
			return Answer{}, nil
		})
		d.Main()
	}
	os.Exit(m.Run())
}

func TestSIGTERMEndsCleanly(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "KIT_TEST_DRIVER=1")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(stdout)
	io.WriteString(stdin, `{"cmd":"print","seq":1}`+"\n")
	line, err := r.ReadString('\n') // answered: the loop is running, so the signal is awaited
	if err != nil || line != `{"ok":true,"seq":1}`+"\n" {
		t.Fatalf("answer %q, %v (a stray print on the wire?)", line, err)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("exit after SIGTERM: %v (stderr %q)", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "a stray print") || !strings.Contains(stderr.String(), "closed every handle") {
		t.Fatalf("stderr %q", stderr.String())
	}
}
