// Package samsacontrol is a tiny client for Samsa's test control over HTTP (`samsa start
// --control`; docs/test-control.md). Standard library only: copy this file into a test tree.
//
//	c := samsacontrol.New("http://127.0.0.1:9644")
//	rule, err := c.InjectError("Produce", "NOT_LEADER_OR_FOLLOWER", 2)
//	...
//	c.RemoveRule(rule)
//	c.Reset()
package samsacontrol

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Client calls one broker's /control API.
type Client struct {
	base string
	http *http.Client
}

// Error is a refused call: the HTTP status and the broker's message.
type Error struct {
	Status  int
	Message string
}

func (e *Error) Error() string { return fmt.Sprintf("%d: %s", e.Status, e.Message) }

// New returns a client for the broker whose HTTP listener is at httpURL.
func New(httpURL string) *Client {
	return &Client{base: strings.TrimRight(httpURL, "/") + "/control", http: &http.Client{Timeout: 60 * time.Second}}
}

// Call sends one call and decodes its JSON answer into out (when not nil).
func (c *Client) Call(method, path string, body map[string]any, out any) error {
	var rd *bytes.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	} else {
		rd = bytes.NewReader(nil)
	}
	req, err := http.NewRequest(method, c.base+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("content-type", "application/json")
	res, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		var e struct {
			Error string `json:"error"`
		}
		_ = json.NewDecoder(res.Body).Decode(&e)
		return &Error{Status: res.StatusCode, Message: e.Error}
	}
	if out == nil {
		return nil
	}
	return json.NewDecoder(res.Body).Decode(out)
}

func (c *Client) id(path string, body map[string]any) (int64, error) {
	var r struct {
		ID int64 `json:"id"`
	}
	err := c.Call("POST", path, body, &r)
	return r.ID, err
}

// InjectError answers the next count requests of api (a name such as "Produce" or a key) with error.
func (c *Client) InjectError(api any, errName any, count int) (int64, error) {
	return c.id("/inject-error", map[string]any{"api": api, "error": errName, "count": count})
}

// InjectPartitionError fails only one partition's slot of the next count requests of api.
func (c *Client) InjectPartitionError(api any, errName any, count int, topic string, partition int32) (int64, error) {
	return c.id("/inject-error", map[string]any{"api": api, "error": errName, "count": count, "topic": topic, "partition": partition})
}

// AddLatency delays every request of api by ms until the rule is removed.
func (c *Client) AddLatency(api any, ms int) (int64, error) {
	return c.id("/latency", map[string]any{"api": api, "ms": ms})
}

// DropNextRequest closes the connection of the next count requests of api, unanswered.
func (c *Client) DropNextRequest(api any, count int) (int64, error) {
	return c.id("/drop", map[string]any{"api": api, "count": count})
}

// RemoveRule removes a rule and returns how many requests it acted on.
func (c *Client) RemoveRule(id int64) (int64, error) {
	var r struct {
		Hits int64 `json:"hits"`
	}
	err := c.Call("DELETE", fmt.Sprintf("/rules/%d", id), nil, &r)
	return r.Hits, err
}

// HoldNextRequest holds the next request of api until Release or DropHeld.
func (c *Client) HoldNextRequest(api any) (int64, error) {
	return c.id("/hold", map[string]any{"api": api})
}

// WaitHeld waits until a request is held and returns the held exchange.
func (c *Client) WaitHeld(id int64, timeoutMs int) (map[string]any, error) {
	var r map[string]any
	err := c.Call("POST", fmt.Sprintf("/holds/%d/wait", id), map[string]any{"timeoutMs": timeoutMs}, &r)
	return r, err
}

// Release lets the held request proceed.
func (c *Client) Release(id int64) error {
	return c.Call("POST", fmt.Sprintf("/holds/%d/release", id), map[string]any{}, nil)
}

// DropHeld closes the held request's connection without an answer.
func (c *Client) DropHeld(id int64) error {
	return c.Call("POST", fmt.Sprintf("/holds/%d/drop", id), map[string]any{}, nil)
}

// Record starts recording the requests of apis (all when empty).
func (c *Client) Record(apis ...string) (int64, error) {
	body := map[string]any{}
	if len(apis) > 0 {
		body["apis"] = apis
	}
	return c.id("/record", body)
}

// Exchanges returns what a recording saw so far.
func (c *Client) Exchanges(id int64) ([]map[string]any, error) {
	var r struct {
		Exchanges []map[string]any `json:"exchanges"`
	}
	err := c.Call("GET", fmt.Sprintf("/recordings/%d", id), nil, &r)
	return r.Exchanges, err
}

// StopRecording ends a recording.
func (c *Client) StopRecording(id int64) error {
	return c.Call("DELETE", fmt.Sprintf("/recordings/%d", id), nil, nil)
}

// DisconnectAll closes every client connection now.
func (c *Client) DisconnectAll() error {
	return c.Call("POST", "/disconnect-all", map[string]any{}, nil)
}

// Connections returns the open connections and those accepted so far.
func (c *Client) Connections() (open, accepted int64, err error) {
	var r struct {
		Open     int64 `json:"open"`
		Accepted int64 `json:"accepted"`
	}
	err = c.Call("GET", "/connections", nil, &r)
	return r.Open, r.Accepted, err
}

// WaitForHighWatermark returns once the partition's high watermark reaches offset.
func (c *Client) WaitForHighWatermark(topic string, partition int32, offset int64, timeoutMs int) error {
	return c.Call("POST", "/wait/high-watermark", map[string]any{"topic": topic, "partition": partition, "offset": offset, "timeoutMs": timeoutMs}, nil)
}

// WaitForGroupStable returns the group once it is Stable.
func (c *Client) WaitForGroupStable(groupID string, timeoutMs int) (map[string]any, error) {
	var r map[string]any
	err := c.Call("POST", "/wait/group-stable", map[string]any{"groupId": groupID, "timeoutMs": timeoutMs}, &r)
	return r, err
}

// WaitForCommittedOffset returns once the group has committed at least offset.
func (c *Client) WaitForCommittedOffset(groupID, topic string, partition int32, offset int64, timeoutMs int) error {
	return c.Call("POST", "/wait/committed-offset", map[string]any{"groupId": groupID, "topic": topic, "partition": partition, "offset": offset, "timeoutMs": timeoutMs}, nil)
}

// Reset removes every rule and releases held requests.
func (c *Client) Reset() error {
	return c.Call("POST", "/reset", map[string]any{}, nil)
}
