package cli

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"strings"

	"github.com/mynah-ai/mynah/internal/llm"
)

// output is what a command wrote: its answer, session id, usage, and the failure it
// reported, if any.
type output struct {
	text    string
	session string
	model   string
	usage   llm.Usage
	err     error
}

// parse reads a command's stdout in format f to its end, handing each piece of the answer
// to onText (when not nil) as it arrives.
func parse(f Format, r io.Reader, onText func(string)) output {
	if onText == nil {
		onText = func(string) {}
	}
	var out output
	if f == Text {
		var b strings.Builder
		buf := make([]byte, 4096)
		for {
			n, err := r.Read(buf)
			if n > 0 {
				b.Write(buf[:n])
				onText(string(buf[:n]))
			}
			if err != nil {
				break
			}
		}
		out.text = b.String()
		return out
	}
	var texts []string
	lines := bufio.NewScanner(r)
	lines.Buffer(make([]byte, 64*1024), 16<<20)
	for lines.Scan() {
		line := strings.TrimSpace(lines.Text())
		if !strings.HasPrefix(line, "{") {
			continue // a log line the agent printed among its events
		}
		var ev event
		if json.Unmarshal([]byte(line), &ev) != nil {
			continue
		}
		switch f {
		case Claude:
			texts = ev.claude(&out, texts, onText)
		case Codex:
			texts = ev.codex(&out, texts, onText)
		case Gemini:
			texts = ev.gemini(&out, texts, onText)
		}
	}
	if out.text == "" {
		out.text = strings.Join(texts, "\n\n")
	}
	return out
}

// event is one JSON line of any of the formats; each reads the fields it has.
type event struct {
	Type         string `json:"type"`
	Subtype      string `json:"subtype"`
	SessionID    string `json:"session_id"`
	SessionCamel string `json:"sessionId"` // Gemini's older spelling
	ThreadID     string `json:"thread_id"`
	Model        string `json:"model"`
	// Claude
	Message *struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	} `json:"message"`
	Result  *string `json:"result"`
	IsError bool    `json:"is_error"`
	Usage   *struct {
		InputTokens         int `json:"input_tokens"`
		OutputTokens        int `json:"output_tokens"`
		CachedInputTokens   int `json:"cached_input_tokens"`
		CacheReadTokens     int `json:"cache_read_input_tokens"`
		CacheCreationTokens int `json:"cache_creation_input_tokens"`
	} `json:"usage"`
	// Codex
	Item *struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"item"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error"`
	// Gemini
	Role    string `json:"role"`
	Content string `json:"content"`
	Delta   bool   `json:"delta"`
	Status  string `json:"status"`
	Stats   *struct {
		InputTokens  int `json:"input_tokens"`
		OutputTokens int `json:"output_tokens"`
		Cached       int `json:"cached"`
	} `json:"stats"`
}

// claude reads Claude Code's stream-json: {"type":"system","subtype":"init","session_id"},
// {"type":"assistant","message":{"content":[{"type":"text","text"}]}},
// {"type":"result","subtype":"success","result","session_id","usage"}.
func (ev event) claude(out *output, texts []string, onText func(string)) []string {
	if ev.SessionID != "" {
		out.session = ev.SessionID
	}
	switch ev.Type {
	case "system":
		if ev.Model != "" {
			out.model = ev.Model
		}
	case "assistant":
		if ev.Message == nil {
			break
		}
		for _, c := range ev.Message.Content {
			if c.Type == "text" && c.Text != "" {
				texts = append(texts, c.Text)
				onText(c.Text)
			}
		}
	case "result":
		if ev.IsError || (ev.Subtype != "" && ev.Subtype != "success") {
			msg := ev.Subtype
			if ev.Result != nil && *ev.Result != "" {
				msg += ": " + *ev.Result
			}
			out.err = errors.New("the agent reported " + msg)
		}
		if ev.Result != nil {
			out.text = *ev.Result
		}
		if u := ev.Usage; u != nil {
			cached := u.CacheReadTokens
			out.usage = llm.Usage{InputTokens: u.InputTokens + cached + u.CacheCreationTokens, OutputTokens: u.OutputTokens, CachedTokens: cached}
		}
	}
	return texts
}

// codex reads codex exec --json: {"type":"thread.started","thread_id"},
// {"type":"item.completed","item":{"type":"agent_message","text"}},
// {"type":"turn.completed","usage"}, {"type":"turn.failed","error"}, {"type":"error"}.
func (ev event) codex(out *output, texts []string, onText func(string)) []string {
	switch ev.Type {
	case "thread.started":
		out.session = ev.ThreadID
	case "item.completed":
		if ev.Item != nil && ev.Item.Type == "agent_message" && ev.Item.Text != "" {
			texts = append(texts, ev.Item.Text)
			onText(ev.Item.Text)
		}
	case "turn.completed":
		if u := ev.Usage; u != nil {
			out.usage = llm.Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, CachedTokens: u.CachedInputTokens}
		}
	case "turn.failed", "error":
		msg := "failed"
		if ev.Error != nil {
			msg = ev.Error.Message
		}
		out.err = errors.New("the agent reported: " + msg)
	}
	return texts
}

// gemini reads Gemini CLI's stream-json: {"type":"init","session_id","model"},
// {"type":"message","role":"assistant","content","delta":true},
// {"type":"result","status","stats"}, {"type":"error"}.
func (ev event) gemini(out *output, texts []string, onText func(string)) []string {
	switch ev.Type {
	case "init":
		out.session = ev.SessionID
		if out.session == "" {
			out.session = ev.SessionCamel
		}
		out.model = ev.Model
	case "message":
		if ev.Role != "assistant" || ev.Content == "" {
			break
		}
		if ev.Delta && len(texts) > 0 {
			texts[len(texts)-1] += ev.Content
		} else {
			texts = append(texts, ev.Content)
		}
		onText(ev.Content)
	case "result":
		if ev.Status != "" && ev.Status != "success" {
			out.err = errors.New("the agent reported " + ev.Status)
		}
		if s := ev.Stats; s != nil {
			out.usage = llm.Usage{InputTokens: s.InputTokens, OutputTokens: s.OutputTokens, CachedTokens: s.Cached}
		}
	}
	return texts
}
