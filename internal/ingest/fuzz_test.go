package ingest_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/access"
	"github.com/mynah-ai/mynah/internal/ingest"
	"github.com/mynah-ai/mynah/internal/sqlite"
	"github.com/mynah-ai/mynah/internal/telegram"
)

const (
	fuzzToken  = "123456789:AAF0-mynah-test-token_forunit-tests"
	fuzzSecret = "s3cret"
)

var fuzzBot = mynah.User{ID: 6000000001, FirstName: "Mynah", Username: "mynah_bot", IsBot: true}

// fuzzPolicies are the access policies FuzzIngest runs under, picked by the input's length:
// open, pairing codes for strangers and groups that wait for approval, and a rate limit
// (the fixtures' user is an admin in the last). None blocks anybody, so every message is
// stored.
var fuzzPolicies = []access.Policy{
	{},
	{Private: access.Pairing, ApprovedGroups: true},
	{Private: access.Open, Trigger: access.Always, Limit: access.RateLimit{Messages: 1, Per: time.Hour},
		Admins: map[mynah.UserID]bool{5551234: true}},
}

// FuzzIngest runs arbitrary webhook bodies through the real intake path: the webhook
// handler's decoding, ingest, and the SQLite store. An update is either stored whole (its
// dedupe key, chat, users, message readable as decoded, and a turn only for a stored
// message) and acknowledged with 200, or nothing of it is stored; an update the decoder
// accepts is one the store accepts, so none is refused at every redelivery; a redelivery
// changes nothing.
//
//	go test -run '^$' -fuzz '^FuzzIngest$' -fuzztime 60s -fuzzminimizetime 1s ./internal/ingest
func FuzzIngest(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("..", "telegram", "testdata", "updates", "*.json"))
	if err != nil || len(files) == 0 {
		f.Fatalf("no update fixtures: %v", err)
	}
	for _, file := range files {
		raw, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(raw)
	}
	for _, s := range []string{
		``, `{}`, `{"update_id":1}`, `{"update_id":-1,"message":{}}`,
		`{"update_id":2,"message":{"message_id":5,"date":1,"text":"no chat"}}`,
		`{"update_id":3,"edited_message":{"message_id":-5,"date":-1,"chat":{"id":-7,"type":"group"},"text":"edit of nothing"}}`,
		`{"update_id":4,"message":{"message_id":0,"date":1,"chat":{"id":1,"type":"private"},"text":"/reset","entities":[{"type":"bot_command","offset":0,"length":99}]}}`,
		`{"update_id":5,"message":{"message_id":5,"date":1,"chat":{"id":-1,"type":"supergroup"},"text":"@mynah_bot hi","entities":[{"type":"mention","offset":-1,"length":999999}]}}`,
		"{\"update_id\":6,\"message\":{\"message_id\":5,\"date\":1,\"chat\":{\"id\":1,\"type\":\"private\"},\"text\":\"\xff\x00\\u0000\\ud800\"}}",
		`{"update_id":7,"message":{"message_id":5,"date":1,"chat":{"id":1,"type":"private"},"text":"` + strings.Repeat("🦜", 10000) + `"}}`,
		`{"update_id":8,"CAllBACk_querY":{"messAge":{"date":1}}}`,
		"{\"update_id\":10,\"message\":{\"message_id\":5,\"date\":1,\"chat\":{\"id\":1,\"type\":\"private\"},\"sticker\":" +
			"{\"file_id\":\"\xff\",\"file_unique_id\":\"AgAD\xebw\",\"width\":1,\"height\":1,\"type\":\"regular\",\"is_animated\":false,\"is_video\":false}}}",
		`{"update_id":9,"message":` + strings.Repeat(`{"message_id":1,"date":1,"chat":{"id":1,"type":"private"},"reply_to_message":`, 30) + `{}` + strings.Repeat("}", 30) + `}`,
		`{"update_id":9223372036854775807,"message":{"message_id":2147483647,"date":9223372036854775807,"chat":{"id":-9223372036854775808,"type":"channel"},"sender_chat":{"id":-9223372036854775808},"text":"x"}}`,
	} {
		f.Add([]byte(s))
	}

	ctx := context.Background()
	path := filepath.Join(f.TempDir(), "mynah.db")
	db, err := sqlite.Open(ctx, path)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { db.Close() })
	raw, err := sql.Open("sqlite", path+"?_pragma=query_only(1)")
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { raw.Close() })
	bot, err := telegram.New(telegram.Config{Token: fuzzToken})
	if err != nil {
		f.Fatal(err)
	}

	runs := 0
	f.Fuzz(func(t *testing.T, body []byte) {
		runs++
		agent := fmt.Sprintf("fuzz%d", runs) // every run has the store to itself
		in := ingest.New(ingest.Agent{Name: agent, Bot: fuzzBot, Names: []string{"Mynah"},
			Texts: ingest.Texts{Start: "hi", Help: "help", Reset: "reset"}}, db,
			ingest.Options{Policy: fuzzPolicies[len(body)%len(fuzzPolicies)], State: db})
		var (
			handled *mynah.Update
			refused error
		)
		h := bot.WebhookHandler(fuzzSecret, func(ctx context.Context, u mynah.Update) error {
			handled = &u
			refused = in.Handle(ctx, u)
			return refused
		})
		post := func() int {
			req := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body))
			req.Header.Set(telegram.SecretHeader, fuzzSecret)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			return rec.Code
		}

		code := post()
		got := countRows(t, raw, agent)
		switch {
		case handled == nil: // refused before ingest: malformed or too large
			if got != (rowCounts{}) {
				t.Fatalf("an update that never reached ingest left rows behind: %+v", got)
			}
			return
		case refused != nil:
			if code == http.StatusOK {
				t.Errorf("update %d acknowledged although ingest failed: %v", handled.ID, refused)
			}
			if got != (rowCounts{}) {
				t.Errorf("update %d refused (%v) but stored in part: %+v", handled.ID, refused, got)
			}
			// Telegram would deliver it again and again, holding back every later update.
			t.Fatalf("the store refuses update %d, which the decoder accepted: %v", handled.ID, refused)
		}
		if code != http.StatusOK {
			t.Errorf("update %d stored but answered %d", handled.ID, code)
		}
		if got.updates != 1 || got.orphanTurns != 0 || got.turns > 1 || got.sessions > 1 {
			t.Errorf("update %d stored as %+v: want its dedupe key, at most one turn and session, no turn without its message", handled.ID, got)
		}
		if m := handled.Message; m != nil {
			stored, err := db.Message(ctx, agent, m.Chat.ID, m.ID)
			if err != nil {
				t.Fatalf("update %d accepted but its message is not readable: %v", handled.ID, err)
			}
			want := *m
			want.Agent = agent
			if handled.Edited {
				want.Edited = stored.Edited
			}
			if !storable(want.Time) {
				want.Time = stored.Time // milliseconds since 1970 do not reach it
			}
			// The store keeps these as JSON, where invalid UTF-8 (which telego's decoder lets
			// through, unlike encoding/json) becomes U+FFFD.
			want.Entities, want.ReplyTo = viaJSON(t, want.Entities), viaJSON(t, want.ReplyTo)
			want.Forward, want.Media = viaJSON(t, want.Forward), viaJSON(t, want.Media)
			if diff := cmp.Diff(want, stored, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("update %d: message stored differs (-decoded +stored):\n%s", handled.ID, diff)
			}
		} else if got.messages != 0 || got.turns != 0 {
			t.Errorf("update %d without a message stored %+v", handled.ID, got)
		}

		// Redelivered (the acknowledgement was lost): acknowledged again, nothing changes.
		handled = nil
		if code := post(); code != http.StatusOK || refused != nil {
			t.Errorf("redelivery answered %d (%v), want 200", code, refused)
		}
		if again := countRows(t, raw, agent); again != got {
			t.Errorf("redelivery changed the store: %+v, was %+v", again, got)
		}
	})
}

// storable reports whether the store keeps t exactly: Unix milliseconds in an int64 reach
// about 292 million years from 1970.
func storable(t time.Time) bool {
	const limit = 292_000_000
	return t.Year() > 1970-limit && t.Year() < 1970+limit
}

// viaJSON returns v as encoding/json writes and reads it back.
func viaJSON[T any](t *testing.T, v T) T {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out T
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// rowCounts are an agent's rows in each intake table, and its turns whose target message
// is not stored.
type rowCounts struct {
	updates, chats, users, messages, turns, sessions, pairings, modes, orphanTurns int
}

func countRows(t *testing.T, db *sql.DB, agent string) rowCounts {
	t.Helper()
	var c rowCounts
	err := db.QueryRow(`SELECT
		(SELECT count(*) FROM updates WHERE agent = ?1),
		(SELECT count(*) FROM chats WHERE agent = ?1),
		(SELECT count(*) FROM users WHERE agent = ?1),
		(SELECT count(*) FROM messages WHERE agent = ?1),
		(SELECT count(*) FROM turns WHERE agent = ?1),
		(SELECT count(*) FROM sessions WHERE agent = ?1),
		(SELECT count(*) FROM pairings WHERE agent = ?1),
		(SELECT count(*) FROM chat_modes WHERE agent = ?1),
		(SELECT count(*) FROM turns t WHERE agent = ?1 AND NOT EXISTS (SELECT 1 FROM messages m
			WHERE m.agent = t.agent AND m.chat_id = t.chat_id AND m.message_id = t.target))`, agent).
		Scan(&c.updates, &c.chats, &c.users, &c.messages, &c.turns, &c.sessions, &c.pairings, &c.modes, &c.orphanTurns)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
