package storecodec_test

import (
	"database/sql"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/storecodec"
)

// A message's JSON columns read back as the message written, on either store.
func TestMessageRoundTrip(t *testing.T) {
	at := time.Date(2025, 3, 1, 9, 30, 0, 0, time.UTC)
	for _, c := range []struct {
		name string
		m    mynah.Message
	}{
		{"plain", mynah.Message{Text: "hi"}},
		{"everything", mynah.Message{
			Entities: []mynah.Entity{{Type: "bold", Offset: 0, Length: 2},
				{Type: "text_mention", Offset: 3, Length: 4, User: &mynah.User{ID: 7, FirstName: "Ann"}},
				{Type: "text_link", Offset: 8, Length: 1, URL: "https://example.org"}},
			ReplyTo: &mynah.ReplyRef{ID: 41, Sender: mynah.User{ID: 8, Username: "bob", IsBot: true}, Text: "the cake?"},
			Forward: &mynah.Forward{Kind: "channel", Name: "News", ChatID: -1001, MessageID: 5, Date: at},
			Media: []mynah.Media{{Kind: mynah.MediaKind("photo"), FileID: "f", FileUniqueID: "u", Width: 640, Height: 480,
				Size: 1234, Description: "a cake"}},
		}},
	} {
		j, err := storecodec.EncodeMessage(&c.m)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var got mynah.Message
		if err := storecodec.DecodeMessage(&got, j); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got.Text = c.m.Text // not a JSON column
		if d := cmp.Diff(got, c.m); d != "" {
			t.Errorf("%s: read back differs (-got +want):\n%s", c.name, d)
		}
	}
}

// A plain send has no task column; every other part reads back as written.
func TestTaskRoundTrip(t *testing.T) {
	if col, err := storecodec.EncodeTask(mynah.OutPart{Key: "k", HTML: "hi"}); err != nil || col.Valid {
		t.Errorf("a plain send: task column %v, %v; want NULL", col, err)
	}
	want := mynah.OutPart{ID: 3, Kind: mynah.TaskSticker, StickerSet: "birds", Emoji: "🐦", Target: 9,
		Wait: 1500 * time.Millisecond, At: time.Date(2025, 3, 1, 9, 30, 0, 0, time.UTC), DependsOn: []string{"a"},
		Buttons: [][]mynah.Button{{{Text: "Yes", Data: "y"}, {Text: "No", Data: "n"}}}, Edit: 4}
	col, err := storecodec.EncodeTask(want)
	if err != nil {
		t.Fatal(err)
	}
	got := mynah.OutPart{ID: 3}
	if err := storecodec.DecodeTask(&got, string(want.Kind), col); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(got, want); d != "" {
		t.Errorf("read back differs (-got +want):\n%s", d)
	}
	buttons, err := storecodec.ButtonsColumn(want.Buttons)
	if err != nil {
		t.Fatal(err)
	}
	if rows, err := storecodec.DecodeButtons(buttons); err != nil || !cmp.Equal(rows, want.Buttons) {
		t.Errorf("buttons read back as %v, %v; want %v", rows, err, want.Buttons)
	}
	if rows, err := storecodec.DecodeButtons(sql.NullString{}); err != nil || rows != nil {
		t.Errorf("no buttons column read back as %v, %v", rows, err)
	}
}

// TestDescribeMediaKeepsFields: setting a description rewrites only that field of the
// items of that file; fields a newer binary stored survive.
func TestDescribeMediaKeepsFields(t *testing.T) {
	stored := `[{"kind":"photo","file_unique_id":"A","file_id":"f","future":{"x":1}},{"kind":"photo","file_unique_id":"B"}]`
	got, changed, err := storecodec.DescribeMedia(stored, "A", "a heron")
	if err != nil || !changed {
		t.Fatalf("DescribeMedia = %v, %v", changed, err)
	}
	var items []map[string]any
	if err := json.Unmarshal([]byte(got), &items); err != nil {
		t.Fatal(err)
	}
	want := []map[string]any{
		{"kind": "photo", "file_unique_id": "A", "file_id": "f", "future": map[string]any{"x": 1.0}, "description": "a heron"},
		{"kind": "photo", "file_unique_id": "B"},
	}
	if diff := cmp.Diff(items, want); diff != "" {
		t.Errorf("rewritten media (-got +want):\n%s", diff)
	}
	if _, changed, err := storecodec.DescribeMedia(got, "A", "a heron"); changed || err != nil {
		t.Errorf("the same description again: changed %v, %v; want no change", changed, err)
	}
	if _, _, err := storecodec.DescribeMedia(`{not json`, "A", "x"); err == nil {
		t.Error("damaged stored media: no error")
	}
}
