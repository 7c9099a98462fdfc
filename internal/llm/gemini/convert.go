package gemini

import (
	"encoding/json"
	"fmt"
	"strings"

	"google.golang.org/genai"

	"github.com/mynah-ai/mynah/internal/llm"
)

// params translates req. The system instruction goes to systemInstruction (Gemini has
// no system role); assistant turns become role "model" and tool results user turns of
// functionResponse parts ({"output": …} or {"error": …}); consecutive turns of the same
// wire role are merged. Tool calls are echoed with their thoughtSignature; images and
// audio travel inline, in their order among the text (see mediaPart).
func (m *Model) params(req llm.Request) ([]*genai.Content, *genai.GenerateContentConfig, error) {
	config := &genai.GenerateContentConfig{}
	if sys := llm.SystemText(req); sys != "" {
		config.SystemInstruction = &genai.Content{Parts: []*genai.Part{{Text: sys}}}
	}
	maxTokens := req.MaxTokens
	if maxTokens == 0 {
		maxTokens = m.cfg.MaxTokens
	}
	if maxTokens > 0 {
		config.MaxOutputTokens = int32(maxTokens)
	}
	if req.Temperature != 0 {
		t := float32(req.Temperature)
		config.Temperature = &t
	}
	if len(req.Tools) > 0 {
		tool := &genai.Tool{}
		for _, t := range req.Tools {
			d := &genai.FunctionDeclaration{Name: t.Name, Description: t.Description}
			if len(t.Parameters) > 0 {
				var schema map[string]any
				if err := json.Unmarshal(t.Parameters, &schema); err != nil {
					return nil, nil, fmt.Errorf("gemini: tool %s: parameters: %w", t.Name, err)
				}
				d.ParametersJsonSchema = schema
			}
			tool.FunctionDeclarations = append(tool.FunctionDeclarations, d)
		}
		config.Tools = []*genai.Tool{tool}
	}

	// Gemini needs the function name on each response; fall back to the call's.
	names := map[string]string{}
	for _, t := range req.Turns {
		for _, p := range t.Parts {
			if p.ToolCall != nil {
				names[p.ToolCall.ID] = p.ToolCall.Name
			}
		}
	}
	var contents []*genai.Content
	for _, t := range req.Turns {
		role := genai.RoleUser
		if t.Role == llm.Assistant {
			role = genai.RoleModel
		}
		var parts []*genai.Part
		for _, p := range t.Parts {
			switch {
			case p.ToolCall != nil:
				if role != genai.RoleModel {
					return nil, nil, fmt.Errorf("gemini: tool call in a %s turn", t.Role)
				}
				var args map[string]any
				if len(p.ToolCall.Arguments) > 0 {
					if err := json.Unmarshal(p.ToolCall.Arguments, &args); err != nil {
						return nil, nil, fmt.Errorf("gemini: tool call %s: arguments: %w", p.ToolCall.Name, err)
					}
				}
				parts = append(parts, &genai.Part{
					FunctionCall:     &genai.FunctionCall{ID: p.ToolCall.ID, Name: p.ToolCall.Name, Args: args},
					ThoughtSignature: p.ToolCall.Signature,
				})
			case p.ToolResult != nil:
				r := p.ToolResult
				name := r.Name
				if name == "" {
					name = names[r.CallID]
				}
				key := "output"
				if r.IsError {
					key = "error"
				}
				parts = append(parts, &genai.Part{FunctionResponse: &genai.FunctionResponse{
					ID: r.CallID, Name: name, Response: map[string]any{key: r.Content}}})
			case p.Image != nil || p.Audio != nil:
				if t.Role != llm.User {
					return nil, nil, fmt.Errorf("gemini: media in a %s turn", t.Role)
				}
				parts = append(parts, mediaPart(p))
			case p.Text != "":
				parts = append(parts, &genai.Part{Text: p.Text})
			}
		}
		if len(parts) == 0 {
			continue
		}
		if n := len(contents); n > 0 && contents[n-1].Role == role {
			contents[n-1].Parts = append(contents[n-1].Parts, parts...)
		} else {
			contents = append(contents, &genai.Content{Role: role, Parts: parts})
		}
	}
	return contents, config, nil
}

// accumulator builds a response from one generateContent response or the chunks of a
// stream: text parts are incremental, function calls arrive whole, usage is cumulative.
// Calls without an id get "call_<n>", numbered across the response.
type accumulator struct {
	text   strings.Builder
	calls  []llm.ToolCall
	finish string
	model  string
	usage  llm.Usage
}

// add folds one response in and returns its text (thought summaries excluded).
func (a *accumulator) add(resp *genai.GenerateContentResponse) string {
	if resp == nil {
		return ""
	}
	if resp.ModelVersion != "" {
		a.model = resp.ModelVersion
	}
	if u := resp.UsageMetadata; u != nil {
		a.usage = llm.Usage{
			InputTokens:  int(u.PromptTokenCount),
			OutputTokens: int(u.CandidatesTokenCount + u.ThoughtsTokenCount),
			CachedTokens: int(u.CachedContentTokenCount),
		}
	}
	if f := resp.PromptFeedback; f != nil && f.BlockReason != "" {
		a.finish = string(f.BlockReason)
	}
	if len(resp.Candidates) == 0 || resp.Candidates[0] == nil {
		return ""
	}
	c := resp.Candidates[0]
	if c.FinishReason != "" {
		a.finish = string(c.FinishReason)
	}
	if c.Content == nil {
		return ""
	}
	var text strings.Builder
	for _, p := range c.Content.Parts {
		switch {
		case p == nil:
		case p.FunctionCall != nil:
			id := p.FunctionCall.ID
			if id == "" {
				id = fmt.Sprintf("call_%d", len(a.calls))
			}
			args, err := json.Marshal(p.FunctionCall.Args)
			if err != nil || p.FunctionCall.Args == nil {
				args = []byte("{}")
			}
			a.calls = append(a.calls, llm.ToolCall{ID: id, Name: p.FunctionCall.Name,
				Arguments: args, Signature: p.ThoughtSignature})
		case !p.Thought:
			text.WriteString(p.Text)
		}
	}
	a.text.WriteString(text.String())
	return text.String()
}

func (a *accumulator) response() *llm.Response {
	return &llm.Response{
		Text:       a.text.String(),
		ToolCalls:  a.calls,
		Usage:      a.usage,
		StopReason: strings.ToLower(a.finish),
		Model:      a.model,
	}
}
