package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

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

// TestImportIndexes: `mynah import` leaves the search index caught up, so the first
// search after a big import does not index the backlog silently (issue 15).
func TestImportIndexes(t *testing.T) {
	sqliteOnly(t, "PostgreSQL indexes each message as it is stored")
	h := newHarness(t, harnessOptions{})
	path := filepath.Join(t.TempDir(), "chat.jsonl")
	var b strings.Builder
	for i := 1; i <= 5000; i++ {
		fmt.Fprintf(&b, `{"id": %d, "time": "2024-05-01T18:30:00Z", "sender_id": 1001, "sender_name": "Alice", "text": "message number %d about bees"}`+"\n", i, i)
	}
	write(t, path, b.String())
	mustCLI(t, h, "import", "--config", h.dir, "--chat", "1001", path)
	db, err := sqlite.Open(t.Context(), filepath.Join(h.dir, "data", "mynah.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if n, err := db.IndexPending(t.Context()); err != nil || n != 0 {
		t.Errorf("after import, %d messages were still waiting for the search index (%v), want 0", n, err)
	}
}

// TestImportAnalyzesOnPostgres: an import into PostgreSQL leaves the planner's statistics
// of the messages and their search entries gathered, so that the first searches after it
// are planned knowing the chat's size, not row by row until autovacuum comes round.
func TestImportAnalyzesOnPostgres(t *testing.T) {
	h := newHarness(t, harnessOptions{YAML: "store: " + testPostgres(t) + "\n"})
	path := filepath.Join(t.TempDir(), "chat.jsonl")
	var b strings.Builder
	for i := 1; i <= 200; i++ {
		fmt.Fprintf(&b, `{"id": %d, "time": "2024-05-01T18:30:00Z", "sender_id": 1001, "sender_name": "Alice", "text": "message number %d about bees"}`+"\n", i, i)
	}
	write(t, path, b.String())
	conn, err := pgx.Connect(t.Context(), h.pg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	analyzed := func() map[string]bool {
		t.Helper()
		rows, err := conn.Query(t.Context(), `SELECT relname, last_analyze IS NOT NULL FROM pg_stat_user_tables
			WHERE schemaname = current_schema() AND relname IN ('messages', 'message_search')`)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]bool{}
		for rows.Next() {
			var name string
			var ok bool
			if err := rows.Scan(&name, &ok); err != nil {
				t.Fatal(err)
			}
			out[name] = ok
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return out
	}
	mustCLI(t, h, "import", "--config", h.dir, "--chat", "1001", path)
	if got := analyzed(); !got["messages"] || !got["message_search"] {
		t.Errorf("after the import, analyzed = %v; want messages and message_search analyzed", got)
	}
	if out := mustCLI(t, h, "memory", "search", "--config", h.dir, "--chat", "1001", "-q", "message number 117"); !strings.Contains(out, "#117") {
		t.Errorf("search after the import:\n%s\nwant message #117", out)
	}
}

// TestImportForumExport: a forum supergroup's export keeps its topics, so per-topic
// sessions apply to imported history (issue 15).
func TestImportForumExport(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	export := filepath.Join("..", "..", "internal", "telegram", "tgexport", "testdata", "forum.json")
	mustCLI(t, h, "import", "telegram-export", "--config", h.dir, export)
	if rows := h.query(`SELECT chat_id FROM chats WHERE chat_id = -1000000000555 AND is_forum = 1`); len(rows) != 1 {
		t.Errorf("the chat is not stored as a forum")
	}
	threads := map[int64]int64{}
	for _, row := range h.query(`SELECT message_id, thread_id FROM messages WHERE chat_id = -1000000000555`) {
		id, _ := strconv.ParseInt(row[0], 10, 64)
		threads[id], _ = strconv.ParseInt(row[1], 10, 64)
	}
	if threads[3] != 2 || threads[4] != 2 || threads[1] != 0 || threads[5] != 0 {
		t.Errorf("thread ids %v: want messages 3 and 4 in topic 2, 1 and 5 in General (0)", threads)
	}
}

// TestImportAccountExport: a whole-account export is accepted: --list shows its chats,
// --chat ID|NAME imports the ones named, and without --chat nothing is imported and the
// chats are listed with how to pick (issue 15).
func TestImportAccountExport(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	export := filepath.Join("..", "..", "internal", "telegram", "tgexport", "testdata", "account.json")
	out := mustCLI(t, h, "import", "telegram-export", "--config", h.dir, "--list", export)
	for _, want := range []string{"2002\tprivate\t2 messages\tBob", "-1000000000777\tsupergroup\t1 messages\tBirders", "Old club"} {
		if !strings.Contains(out, want) {
			t.Errorf("--list lacks %q:\n%s", want, out)
		}
	}
	if out, code := mynahCLI(t, h, "import", "telegram-export", "--config", h.dir, export); code == 0 || !strings.Contains(out, "pick with --chat") {
		t.Errorf("an account export without --chat: exit %d\n%s", code, out)
	}
	out = mustCLI(t, h, "import", "telegram-export", "--config", h.dir, "--chat", "birders", "--chat", "2002", export)
	if !strings.Contains(out, "imported 1 new messages into chat -1000000000777") || !strings.Contains(out, "imported 2 new messages into chat 2002") {
		t.Errorf("--chat birders --chat 2002:\n%s", out)
	}
}

// TestSearchWordNobodyWrote: in a chat big enough that the other words are common, a word
// that matches nothing does not empty `mynah memory search` (issue 15).
func TestSearchWordNobodyWrote(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	path := filepath.Join(t.TempDir(), "chat.jsonl")
	var b strings.Builder
	for i := 1; i <= 1200; i++ {
		fmt.Fprintf(&b, `{"id": %d, "time": "2024-05-01T18:30:00Z", "sender_id": 1001, "sender_name": "Alice", "text": "the Havells kit number %d"}`+"\n", i, i)
	}
	write(t, path, b.String())
	mustCLI(t, h, "import", "--config", h.dir, "--chat", "1001", path)
	if out := mustCLI(t, h, "memory", "search", "--config", h.dir, "--query", "Havells grooming kit"); strings.Contains(out, "nothing found") {
		t.Errorf("a word nobody wrote emptied the search:\n%s", out)
	}
}

// TestImportExportContent: forwards, files sent as files, polls, contacts and locations
// of a Telegram Desktop export reach the prompt as what they are, not as empty messages,
// and a contact's phone number never does (issue 15).
func TestImportExportContent(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	msg := func(id int, fields string) string {
		return fmt.Sprintf(`{"id": %d, "type": "message", "date": "2024-05-01T10:0%d:00", "date_unixtime": "%d", "from": "Alice", "from_id": "user1001", %s}`,
			id, id, 1714557600+60*id, fields)
	}
	export := `{"name": "Alice", "type": "personal_chat", "id": 1001, "messages": [` + strings.Join([]string{
		msg(1, `"forwarded_from": "Bird News", "forwarded_from_id": "channel77", "text": "herons are back"`),
		msg(2, `"file": "files/report.pdf", "file_name": "report.pdf", "mime_type": "application/pdf", "text": "the report"`),
		msg(3, `"poll": {"question": "Lunch where?", "closed": false, "total_voters": 1, "answers": [{"text": "Pizza", "voters": 1, "chosen": true}, {"text": "Sushi", "voters": 0, "chosen": false}]}, "text": ""`),
		msg(4, `"contact_information": {"first_name": "Dora", "last_name": "Explorer", "phone_number": "+49 30 1234567"}, "text": ""`),
		msg(5, `"location_information": {"latitude": 52.52, "longitude": 13.405}, "text": ""`),
	}, ",") + `]}`
	path := filepath.Join(t.TempDir(), "result.json")
	write(t, path, export)
	mustCLI(t, h, "import", "telegram-export", "--config", h.dir, path)
	out := mustCLI(t, h, "context", "show", "--config", h.dir, "--chat", "1001")
	for _, want := range []string{"Bird News", "herons are back", "report.pdf", "Lunch where?", "Pizza", "Dora Explorer", "52.52"} {
		if !strings.Contains(out, want) {
			t.Errorf("the prompt of the imported chat lacks %q", want)
		}
	}
	if strings.Contains(out, "1234567") {
		t.Error("a contact's phone number reached the prompt")
	}
	if t.Failed() {
		t.Logf("context show:\n%s", out)
	}
}

// TestSearchUkrainianRussianForms: after `mynah import` of a Ukrainian and Russian chat,
// `mynah memory search` finds a word in its other forms, each word stemmed by its own
// language, with ё and the apostrophes folded (issue 17).
func TestSearchUkrainianRussianForms(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	path := filepath.Join(t.TempDir(), "chat.jsonl")
	var b strings.Builder
	for i, text := range []string{
		"Оля нарешті купила машину",
		"Ми два роки жили у Львові",
		"Завтра веду сина до лікаря",
		"Поїдемо туди потягом, так дешевше",
		"Я родилась в Киеве, а живу в Харькове",
		"Поставили елку в офисе",
		"Памʼятаєш ту кав'ярню на Подолі?",
	} {
		fmt.Fprintf(&b, `{"id": %d, "time": "2024-05-01T18:30:00Z", "sender_id": 1001, "sender_name": "Оля", "text": %q}`+"\n", i+1, text)
	}
	write(t, path, b.String())
	mustCLI(t, h, "import", "--config", h.dir, "--chat", "1001", path)
	for query, want := range map[string]string{
		"машина":      "купила машину",
		"Львів":       "у Львові",
		"лікар":       "до лікаря",
		"потяг":       "потягом",
		"Киев":        "в Киеве",
		"ёлка":        "елку",
		"пам'ятаєте":  "Памʼятаєш",
		"кав’ярні":    "кав'ярню",
		"жить в Киев": "в Киеве",
	} {
		out := mustCLI(t, h, "memory", "search", "--config", h.dir, "--query", query, "--json")
		var items []struct {
			Snippet string `json:"snippet"`
		}
		if err := json.Unmarshal([]byte(out), &items); err != nil {
			t.Fatalf("memory search --json: %v\n%s", err, out)
		}
		if len(items) == 0 || !strings.Contains(items[0].Snippet, want) {
			t.Errorf("memory search %q found %+v, want first the message with %q", query, items, want)
		}
	}
}
