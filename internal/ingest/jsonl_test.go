package ingest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mynah-ai/mynah"
)

func TestParseJSONL(t *testing.T) {
	at := time.Date(2024, 5, 1, 16, 30, 0, 0, time.UTC)
	for _, tt := range []struct {
		line    string
		want    mynah.Message
		wantErr string
	}{
		{line: `{"id": 1, "time": "2024-05-01T18:30:00+02:00", "sender_id": 1001, "sender_name": "Alice  Liddell ", "text": "hi", "reply_to": 0}`,
			want: mynah.Message{ID: 1, Time: at, Sender: mynah.User{ID: 1001, FirstName: "Alice", LastName: "Liddell"}, Text: "hi"}},
		{line: `{"id": 2147483647, "time": "2024-05-01T16:30:00Z", "sender_id": -5, "text": "", "reply_to": 1}`,
			want: mynah.Message{ID: 2147483647, Time: at, Sender: mynah.User{ID: -5}, ReplyTo: &mynah.ReplyRef{ID: 1}}},
		{line: `[1]`, wantErr: "not a JSON object of the import format: json: cannot unmarshal array"},
		{line: `{"id": 1, "txt": "x"}`, wantErr: `not a JSON object of the import format: json: unknown field "txt"`},
		{line: `{"time": "2024-05-01T16:30:00Z"}`, wantErr: `"id" is missing`},
		{line: `{"id": 0}`, wantErr: `"id" 0 is not between 1 and 2147483647`},
		{line: `{"id": 2147483648}`, wantErr: `"id" 2147483648 is not between 1 and 2147483647`},
		{line: `{"id": 1}`, wantErr: `"time" is missing`},
		{line: `{"id": 1, "time": "x", "sender_id": 0}`, wantErr: `"sender_id" is missing or 0`},
		{line: `{"id": 1, "time": "x"}`, wantErr: `"sender_id" is missing or 0`},
		{line: `{"id": 1, "time": "x", "sender_id": 7}`, wantErr: `"text" is missing`},
		{line: `{"id": 1, "time": "x", "sender_id": 7, "text": "", "reply_to": -1}`, wantErr: `"reply_to" -1 is negative`},
		{line: `{"id": 1, "time": "yesterday", "sender_id": 7, "text": ""}`, wantErr: `"time" "yesterday" is not RFC 3339 (like 2024-05-01T18:30:00Z)`},
	} {
		got, err := parseJSONL([]byte(tt.line))
		if tt.wantErr != "" {
			if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) {
				t.Errorf("parseJSONL(%s) error = %v, want %q…", tt.line, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("parseJSONL(%s): %v", tt.line, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("parseJSONL(%s) (-want +got):\n%s", tt.line, diff)
		}
	}
}

// TestJSONL: blank lines are skipped but counted, every run reads the file again, and a
// false yield stops the reading.
func TestJSONL(t *testing.T) {
	path := filepath.Join(t.TempDir(), "chat.jsonl")
	line := `{"id": %d, "time": "2024-05-01T16:30:00Z", "sender_id": 7, "text": "t"}`
	content := strings.ReplaceAll(line, "%d", "1") + "\n\n  \n" + strings.ReplaceAll(line, "%d", "2") + "\n{oops}" // no final newline
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	type read struct {
		Pos string
		ID  mynah.MessageID
		Bad bool
	}
	src := JSONL(path)
	for run := range 2 {
		var got []read
		err := src(func(pos string, m mynah.Message, err error) bool {
			got = append(got, read{pos, m.ID, err != nil})
			return true
		})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]read{{"line 1", 1, false}, {"line 4", 2, false}, {"line 5", 0, true}}, got); diff != "" {
			t.Errorf("run %d (-want +got):\n%s", run, diff)
		}
	}
	n := 0
	if err := src(func(string, mynah.Message, error) bool { n++; return false }); err != nil || n != 1 {
		t.Errorf("stopping at once: %d messages yielded, %v; want 1, nil", n, err)
	}
	if err := JSONL(filepath.Join(t.TempDir(), "missing.jsonl"))(nil); !os.IsNotExist(err) {
		t.Errorf("missing file: %v, want not exist", err)
	}
}
