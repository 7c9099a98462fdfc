package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/ingest"
	"github.com/mynah-ai/mynah/internal/sqlite"
)

// TestImportOutgoing: what the agent's own bot said comes back as the agent's messages,
// and everyone else's as inbound, as if they had arrived live.
func TestImportOutgoing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "chat.jsonl")
	if err := os.WriteFile(path, []byte(`{"id": 1, "time": "2024-05-01T18:30:00Z", "sender_id": 1001, "sender_name": "Alice", "text": "hi bot"}
{"id": 2, "time": "2024-05-01T18:30:05Z", "sender_id": 555, "sender_name": "Mynah", "text": "hi Alice"}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	db, err := sqlite.Open(t.Context(), filepath.Join(dir, "mynah.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	plan, err := ingest.Check(t.Context(), ingest.JSONL(path), false)
	if err != nil {
		t.Fatal(err)
	}
	chat := mynah.ChatFromID(42)
	if _, err := plan.Store(t.Context(), db, "Mynah", botID(agentConfig{agentFront: agentFront{TelegramToken: "555:secret"}}), chat, nil); err != nil {
		t.Fatal(err)
	}
	h, err := db.History(t.Context(), "Mynah", chat.ID, 0, 0, 10)
	if err != nil || len(h) != 2 {
		t.Fatalf("History: %d messages, %v", len(h), err)
	}
	if h[0].Outgoing || !h[1].Outgoing {
		t.Errorf("outgoing = %v, %v; want false (Alice), true (the bot)", h[0].Outgoing, h[1].Outgoing)
	}
	if h[1].Chat.Type != mynah.ChatPrivate {
		t.Errorf("chat 42 stored as %q, want private", h[1].Chat.Type)
	}
}
