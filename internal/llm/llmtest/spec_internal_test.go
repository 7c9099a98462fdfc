package llmtest

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// schemas returns the component schemas of a provider's OpenAPI document from the
// shared specs beside the repository (skipping the test in a plain clone).
func schemas(t *testing.T, file string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "shared", "specs", "llm", file))
	if os.IsNotExist(err) {
		t.Skipf("%s not present beside the repository", file)
	}
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Components struct {
			Schemas map[string]any `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Components.Schemas
}

// specAt returns the value at a dot-separated path of a decoded schema.
func specAt(t *testing.T, v any, path string) any {
	t.Helper()
	for _, k := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("spec has nothing at %s", path)
		}
		v = m[k]
	}
	return v
}

func strs(t *testing.T, v any) []string {
	t.Helper()
	list, ok := v.([]any)
	if !ok {
		t.Fatalf("spec value %v is not a list", v)
	}
	var out []string
	for _, e := range list {
		out = append(out, e.(string))
	}
	slices.Sort(out)
	return out
}

func sorted[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

// TestMediaAgainstSpecs: what the fakes take of media and transcriptions is what the
// providers' OpenAPI documents say.
func TestMediaAgainstSpecs(t *testing.T) {
	t.Run("openai", func(t *testing.T) {
		s := schemas(t, "openai-openapi.json")
		formats := strs(t, specAt(t, s, "ChatCompletionRequestMessageContentPartAudio.properties.input_audio.properties.format.enum"))
		if diff := cmp.Diff(sorted(openaiAudioFormats), formats); diff != "" {
			t.Errorf("input_audio formats (-fake +spec):\n%s", diff)
		}
		detail := strs(t, specAt(t, s, "ChatCompletionRequestMessageContentPartImage.properties.image_url.properties.detail.enum"))
		if diff := cmp.Diff([]string{"auto", "high", "low"}, detail); diff != "" {
			t.Errorf("image_url.detail (-fake +spec):\n%s", diff)
		}
		req := specAt(t, s, "CreateTranscriptionRequest").(map[string]any)
		if diff := cmp.Diff(slices.Sorted(slices.Values(transcribeFields)), sorted(req["properties"].(map[string]any))); diff != "" {
			t.Errorf("transcription fields (-fake +spec):\n%s", diff)
		}
		if diff := cmp.Diff([]string{"file", "model"}, strs(t, req["required"])); diff != "" {
			t.Errorf("required transcription fields (-fake +spec):\n%s", diff)
		}
		desc := specAt(t, req, "properties.file.description").(string)
		m := regexp.MustCompile(`formats: ([a-z0-9, ]+?)\.`).FindStringSubmatch(desc)
		if m == nil {
			t.Fatalf("no list of formats in %q", desc)
		}
		spec := strings.Split(strings.ReplaceAll(strings.ReplaceAll(m[1], "or ", ""), " ", ""), ",")
		if diff := cmp.Diff(transcribeFormats, spec); diff != "" {
			t.Errorf("transcription formats (-fake +spec):\n%s", diff)
		}
		if _, ok := specAt(t, s, "CreateTranscriptionResponseJson.properties").(map[string]any)["text"]; !ok {
			t.Error("the spec's transcription has no text")
		}
	})
	t.Run("anthropic", func(t *testing.T) {
		s := schemas(t, "anthropic-openapi.json")
		types := strs(t, specAt(t, s, "Base64ImageSource.properties.media_type.enum"))
		if diff := cmp.Diff(sorted(anthropicImageTypes), types); diff != "" {
			t.Errorf("image media types (-fake +spec):\n%s", diff)
		}
	})
	t.Run("gemini", func(t *testing.T) {
		s := schemas(t, "gemini-generativelanguage-v1beta.openapi3.json")
		if specAt(t, s, "Part.properties.inlineData") == nil {
			t.Error("the spec's Part has no inlineData")
		}
		if diff := cmp.Diff([]string{"data", "mimeType"}, sorted(specAt(t, s, "Blob.properties").(map[string]any))); diff != "" {
			t.Errorf("Blob fields (-fake +spec):\n%s", diff)
		}
	})
}
