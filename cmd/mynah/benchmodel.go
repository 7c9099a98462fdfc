package main

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mynah-ai/mynah/internal/tokens"
)

// fakeOpenAI is bench load's model: an OpenAI Chat Completions server that answers
// "re: " and the last line of the last user message (the message being answered, after
// its [meta] header), streamed as the API streams, after a fixed delay. It reports the
// prompt's tokens as tokens.Estimate counts them.
type fakeOpenAI struct {
	URL string // base URL, with /v1

	srv       *http.Server
	delay     time.Duration
	accept    int          // requests served at once; more get 429 (0: no limit)
	running   atomic.Int64 // requests being served
	throttled atomic.Int64
	seq       atomic.Int64
	wg        sync.WaitGroup
}

// startFakeOpenAI serves on a local port until Close.
func startFakeOpenAI(delay time.Duration, accept int) (*fakeOpenAI, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	f := &fakeOpenAI{URL: "http://" + ln.Addr().String() + "/v1", delay: delay, accept: accept}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", f.complete)
	f.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	f.wg.Go(func() { _ = f.srv.Serve(ln) })
	return f, nil
}

// Close stops the server.
func (f *fakeOpenAI) Close() {
	_ = f.srv.Close()
	f.wg.Wait()
}

// Throttled is how many requests were refused with 429.
func (f *fakeOpenAI) Throttled() int { return int(f.throttled.Load()) }

func (f *fakeOpenAI) complete(w http.ResponseWriter, r *http.Request) {
	n := f.running.Add(1)
	defer f.running.Add(-1)
	if f.accept > 0 && n > int64(f.accept) {
		f.throttled.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Retry-After", "0")
		w.WriteHeader(http.StatusTooManyRequests)
		fmt.Fprint(w, `{"error": {"message": "Rate limit reached: too many requests at once", "type": "requests", "param": null, "code": "rate_limit_exceeded"}}`)
		return
	}
	var req struct {
		Model    string `json:"model"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		Stream bool `json:"stream"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, `{"error": {"message": "bad JSON"}}`, http.StatusBadRequest)
		return
	}
	prompt, last := 0, ""
	for _, m := range req.Messages {
		text := contentText(m.Content)
		prompt += 4 + tokens.Estimate(text) // OpenAI's per-message overhead, roughly
		if m.Role == "user" {
			last = text
		}
	}
	reply := "re: " + lastPlainLine(last)
	if f.delay > 0 {
		select {
		case <-time.After(f.delay):
		case <-r.Context().Done():
			return
		}
	}
	id := fmt.Sprintf("chatcmpl-load%d", f.seq.Add(1))
	usage := fmt.Sprintf(`{"prompt_tokens": %d, "completion_tokens": %d, "total_tokens": %d}`, prompt, tokens.Estimate(reply), prompt+tokens.Estimate(reply))
	if !req.Stream {
		w.Header().Set("Content-Type", "application/json")
		content, _ := json.Marshal(reply)
		fmt.Fprintf(w, `{"id": %q, "object": "chat.completion", "created": 1727346176, "model": %q, "choices": [{"index": 0, "message": {"role": "assistant", "content": %s}, "finish_reason": "stop"}], "usage": %s}`,
			id, req.Model, content, usage)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	fl, _ := w.(http.Flusher)
	chunk := func(delta, finish, usage string) {
		fmt.Fprintf(w, `data: {"id": %q, "object": "chat.completion.chunk", "created": 1727346176, "model": %q, "choices": [`, id, req.Model)
		if delta != "" {
			fmt.Fprintf(w, `{"index": 0, "delta": %s, "finish_reason": %s}`, delta, finish)
		}
		fmt.Fprint(w, "]")
		if usage != "" {
			fmt.Fprintf(w, `, "usage": %s`, usage)
		}
		fmt.Fprint(w, "}\n\n")
		if fl != nil {
			fl.Flush()
		}
	}
	chunk(`{"role": "assistant", "content": ""}`, "null", "")
	// Three pieces, as a short answer streams in a few chunks.
	rs := []rune(reply)
	size := (len(rs) + 2) / 3
	for len(rs) > 0 {
		k := min(size, len(rs))
		piece, _ := json.Marshal(string(rs[:k]))
		rs = rs[k:]
		chunk(`{"content": `+string(piece)+`}`, "null", "")
	}
	chunk(`{}`, `"stop"`, "")
	chunk("", "", usage)
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// contentText is a message's text: a JSON string, or the text parts of an array.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &parts)
	var b strings.Builder
	for _, p := range parts {
		if p.Type == "text" {
			b.WriteString(p.Text)
			b.WriteString("\n")
		}
	}
	return b.String()
}

// lastPlainLine is the last line of s that is not a [meta] header.
func lastPlainLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" && !strings.HasPrefix(l, "[") {
			return l
		}
	}
	return ""
}
