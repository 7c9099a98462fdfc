package llmtest

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"net/http"
	"strings"
	"sync"
	"unicode"
)

// EmbedDims is the dimension of the fake servers' vectors unless a request asks for
// another (OpenAI "dimensions", Gemini "outputDimensionality").
const EmbedDims = 64

// EmbedRequest is one embeddings call a Server received.
type EmbedRequest struct {
	Path      string
	Model     string
	Texts     []string
	HasAPIKey bool
}

// embeddings is a Server's embeddings endpoint state.
type embeddings struct {
	mu       sync.Mutex
	reqs     []EmbedRequest
	synonyms map[string]string
	fail     []Reply // errors answered, in order, before any vector
}

// SetSynonyms makes the fake's vectors treat each key word as its value word, so texts
// that share no word can still be near ("kitten" → "cat"). Words are lower case.
func (s *Server) SetSynonyms(m map[string]string) {
	s.emb.mu.Lock()
	defer s.emb.mu.Unlock()
	s.emb.synonyms = m
}

// FailEmbeds queues error replies (Status, RetryAfter, Message) for the next embeddings
// calls.
func (s *Server) FailEmbeds(r ...Reply) {
	s.emb.mu.Lock()
	defer s.emb.mu.Unlock()
	s.emb.fail = append(s.emb.fail, r...)
}

// EmbedRequests returns every embeddings call received so far, oldest first. They are
// kept apart from Requests, so chat tests count chat calls only.
func (s *Server) EmbedRequests() []EmbedRequest {
	s.emb.mu.Lock()
	defer s.emb.mu.Unlock()
	return append([]EmbedRequest(nil), s.emb.reqs...)
}

// Embed is the fake's vector of text: a hashed bag of its words (after synonyms), of
// unit length, so texts sharing words are near and cosine similarity is a dot product.
func (s *Server) Embed(text string, dims int) []float32 {
	s.emb.mu.Lock()
	syn := s.emb.synonyms
	s.emb.mu.Unlock()
	return bagOfWords(text, dims, syn)
}

func bagOfWords(text string, dims int, syn map[string]string) []float32 {
	if dims <= 0 {
		dims = EmbedDims
	}
	v := make([]float32, dims)
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	for _, w := range words {
		if to, ok := syn[w]; ok {
			w = to
		}
		h := fnv.New64a()
		h.Write([]byte(w))
		x := h.Sum64()
		sign := float32(1)
		if x>>63 == 1 {
			sign = -1
		}
		v[x%uint64(dims)] += sign
	}
	var n float64
	for _, f := range v {
		n += float64(f) * float64(f)
	}
	if n == 0 {
		v[0] = 1 // empty text: some unit vector, as real models give one
		return v
	}
	for i := range v {
		v[i] = float32(float64(v[i]) / math.Sqrt(n))
	}
	return v
}

// serveEmbed answers r when it is an embeddings call of the server's dialect and reports
// whether it was one.
func (s *Server) serveEmbed(w http.ResponseWriter, r *http.Request, body []byte) bool {
	var req EmbedRequest
	var dims int
	var problem string
	var reply func(vecs [][]float32)
	switch s.d.(type) {
	case openaiDialect:
		if r.URL.Path != "/v1/embeddings" {
			return false
		}
		req.HasAPIKey = strings.HasPrefix(r.Header.Get("Authorization"), "Bearer ")
		problem, dims = parseOpenAIEmbed(body, &req)
		reply = func(vecs [][]float32) {
			data := make([]map[string]any, len(vecs))
			n := 0
			for i, v := range vecs {
				data[i] = map[string]any{"object": "embedding", "index": i, "embedding": v}
				n += len(strings.Fields(req.Texts[i]))
			}
			writeJSON(w, http.StatusOK, map[string]any{"object": "list", "model": req.Model, "data": data,
				"usage": map[string]any{"prompt_tokens": n, "total_tokens": n}})
		}
	case geminiDialect:
		rest, ok := strings.CutPrefix(r.URL.Path, "/v1beta/models/")
		model, verb, _ := strings.Cut(rest, ":")
		if !ok || verb != "batchEmbedContents" {
			return false
		}
		req.Model = model
		req.HasAPIKey = r.Header.Get("X-Goog-Api-Key") != "" || r.URL.Query().Get("key") != ""
		problem, dims = parseGeminiEmbed(body, &req)
		reply = func(vecs [][]float32) {
			embs := make([]map[string]any, len(vecs))
			for i, v := range vecs {
				embs[i] = map[string]any{"values": v}
			}
			writeJSON(w, http.StatusOK, map[string]any{"embeddings": embs})
		}
	default:
		return false
	}
	req.Path = r.URL.Path
	if problem == "" && !req.HasAPIKey {
		problem = "missing API key"
	}
	s.emb.mu.Lock()
	s.emb.reqs = append(s.emb.reqs, req)
	syn := s.emb.synonyms
	var fail *Reply
	if problem == "" && len(s.emb.fail) > 0 {
		fail = &s.emb.fail[0]
		s.emb.fail = s.emb.fail[1:]
	}
	s.emb.mu.Unlock()
	switch {
	case problem != "":
		s.t.Errorf("llmtest: malformed embeddings request %s: %s\nbody: %s", r.URL.Path, problem, body)
		s.d.writeError(w, http.StatusBadRequest, "", problem)
	case fail != nil:
		s.d.writeError(w, fail.Status, fail.RetryAfter, cmpOrString(fail.Message, http.StatusText(fail.Status)))
	default:
		vecs := make([][]float32, len(req.Texts))
		for i, t := range req.Texts {
			vecs[i] = bagOfWords(t, dims, syn)
		}
		reply(vecs)
	}
	return true
}

func cmpOrString(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func parseOpenAIEmbed(body []byte, req *EmbedRequest) (problem string, dims int) {
	var in struct {
		Model          string          `json:"model"`
		Input          json.RawMessage `json:"input"`
		Dimensions     int             `json:"dimensions"`
		EncodingFormat string          `json:"encoding_format"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		return "body is not a JSON request: " + err.Error(), 0
	}
	req.Model = in.Model
	if in.Model == "" {
		return "missing required parameter: 'model'", 0
	}
	if in.EncodingFormat != "" && in.EncodingFormat != "float" {
		return fmt.Sprintf("encoding_format %q is not supported by the fake (want float)", in.EncodingFormat), 0
	}
	var one string
	if json.Unmarshal(in.Input, &one) == nil {
		req.Texts = []string{one}
	} else if err := json.Unmarshal(in.Input, &req.Texts); err != nil {
		return "input: want a string or an array of strings", 0
	}
	if len(req.Texts) == 0 || len(req.Texts) > 2048 {
		return "input: must hold 1 to 2048 strings", 0
	}
	for i, t := range req.Texts {
		if t == "" {
			return fmt.Sprintf("input[%d]: must not be empty", i), 0
		}
	}
	return "", in.Dimensions
}

func parseGeminiEmbed(body []byte, req *EmbedRequest) (problem string, dims int) {
	var in struct {
		Requests []struct {
			Content *struct {
				Parts []struct {
					Text *string `json:"text"`
				} `json:"parts"`
			} `json:"content"`
			Model string `json:"model"`
			Dims  int    `json:"outputDimensionality"`
		} `json:"requests"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		return "Invalid JSON payload received. " + err.Error(), 0
	}
	if len(in.Requests) == 0 || len(in.Requests) > 100 {
		return "* BatchEmbedContentsRequest.requests: must hold 1 to 100 requests", 0
	}
	for i, r := range in.Requests {
		// The spec's EmbedContentRequest requires model ("models/..."), as genai sends it.
		if !strings.HasPrefix(r.Model, "models/") {
			return fmt.Sprintf("* BatchEmbedContentsRequest.requests[%d].model: want models/{model}, got %q", i, r.Model), 0
		}
		if r.Content == nil || len(r.Content.Parts) == 0 {
			return fmt.Sprintf("* BatchEmbedContentsRequest.requests[%d].content: content is required", i), 0
		}
		var text strings.Builder
		for _, p := range r.Content.Parts {
			if p.Text == nil {
				return fmt.Sprintf("* BatchEmbedContentsRequest.requests[%d].content.parts: only text parts are supported by the fake", i), 0
			}
			text.WriteString(*p.Text)
		}
		req.Texts = append(req.Texts, text.String())
		dims = r.Dims
	}
	return "", dims
}
