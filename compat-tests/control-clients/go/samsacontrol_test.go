package samsacontrol

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestAgainstBroker drives a broker started with --control (SAMSA_CONTROL_URL, SAMSA_BOOTSTRAP):
// an injected Produce error that kcat's producer retries, seen in a recording and the rule's
// hits; a wait on the high watermark; a refused call. Skipped when SAMSA_CONTROL_URL is unset.
func TestAgainstBroker(t *testing.T) {
	url, bootstrap := os.Getenv("SAMSA_CONTROL_URL"), os.Getenv("SAMSA_BOOTSTRAP")
	if url == "" {
		t.Skip("SAMSA_CONTROL_URL not set")
	}
	c := New(url)
	rec, err := c.Record("Produce")
	if err != nil {
		t.Fatal(err)
	}
	rule, err := c.InjectError("Produce", "NOT_LEADER_OR_FOLLOWER", 1)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("kcat", "-b", bootstrap, "-P", "-t", "ctl-go", "-X", "retry.backoff.ms=50")
	cmd.Stdin = strings.NewReader("hello\n")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("kcat: %v: %s", err, out)
	}
	hits, err := c.RemoveRule(rule)
	if err != nil || hits != 1 {
		t.Fatalf("hits %d, %v", hits, err)
	}
	exchanges, err := c.Exchanges(rec)
	if err != nil {
		t.Fatal(err)
	}
	injected := 0
	for _, x := range exchanges {
		if v, ok := x["injectedError"].(float64); ok && v == 6 {
			injected++
		}
	}
	if injected != 1 || len(exchanges) < 2 {
		t.Fatalf("recording: %d exchanges, %d injected", len(exchanges), injected)
	}
	if err := c.WaitForHighWatermark("ctl-go", 0, 1, 5000); err != nil {
		t.Fatal(err)
	}
	_, err = c.InjectError("NoSuchApi", "UNKNOWN_SERVER_ERROR", 1)
	var ce *Error
	if !errors.As(err, &ce) || ce.Status != 400 {
		t.Fatalf("expected a 400, got %v", err)
	}
	if err := c.Reset(); err != nil {
		t.Fatal(err)
	}
}
