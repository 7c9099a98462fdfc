package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mynah-ai/mynah/internal/llm"
	"github.com/mynah-ai/mynah/internal/llm/llmtest"
	"github.com/mynah-ai/mynah/internal/memory"
)

// TestMemorySearchCLI: `mynah memory search` takes several --query at once and merges
// their results, reads a time in the query at --at ("last week" is the week before it),
// says when each hit was said, and finds a mistyped word's messages.
func TestMemorySearchCLI(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	path := filepath.Join(t.TempDir(), "chat.jsonl")
	var b strings.Builder
	for i, m := range []struct{ time, text string }{
		{"2024-05-01T10:00:00Z", "five days in Japan, mostly Tokyo"},
		{"2024-05-01T10:01:00Z", "sounds lovely"},
		{"2024-05-08T10:00:00Z", "three days in Chicago for work"},
		{"2024-05-20T10:00:00Z", "the dentist moved my appointment"},
		{"2024-05-27T10:00:00Z", "the dentist again, a filling this time"},
		{"2024-04-20T10:00:00Z", "bought a rain jacket for the trip"},
		{"2024-05-12T10:00:00Z", "back home, bought a rain jacket for my sister too"},
	} {
		fmt.Fprintf(&b, `{"id": %d, "time": %q, "sender_id": 1001, "sender_name": "Alice", "text": %q}`+"\n", i+1, m.time, m.text)
	}
	write(t, path, b.String())
	mustCLI(t, h, "import", "--config", h.dir, "--chat", "1001", path)

	out := mustCLI(t, h, "memory", "search", "--config", h.dir, "-q", "days in Japan", "-q", "days in Chicago", "-k", "2", "--json")
	var items []struct {
		MessageID int64  `json:"message_id"`
		Said      string `json:"said"`
	}
	if err := json.Unmarshal([]byte(out), &items); err != nil {
		t.Fatalf("--json: %v\n%s", err, out)
	}
	if len(items) != 2 || items[0].MessageID+items[1].MessageID != 4 {
		t.Errorf("two queries found %+v, want messages 1 (Japan) and 3 (Chicago)", items)
	}

	// --at as people and benchmarks write dates
	for _, at := range []string{"2024-05-28 09:00", "2024-05-28T09:00:00Z", "2024/05/28 (Tue) 09:00", "28.05.2024 09:00"} {
		out = mustCLI(t, h, "memory", "search", "--config", h.dir, "-q", "what did the dentist do last week", "--at", at, "-k", "1")
		if !strings.Contains(out, "#4") || !strings.Contains(out, "Mon 20 May 2024 10:00, 8 days ago") {
			t.Errorf("the dentist last week (asked %s) found:\n%s\nwant message 4 of 20 May, with when it was said", at, out)
		}
	}
	// "before"/"after" an event: the time of the messages that tell of the trip to Japan
	// (1 May) bounds the search; the same words, a different first hit.
	for _, c := range []struct{ query, first, said string }{
		{"rain jacket bought before the trip to Japan", "#6", "Sat 20 Apr 2024 10:00"},
		{"rain jacket bought after the trip to Japan", "#7", "Sun 12 May 2024 10:00"},
	} {
		out = mustCLI(t, h, "memory", "search", "--config", h.dir, "-q", c.query, "--at", "2024-05-28 09:00", "-k", "1")
		if !strings.Contains(out, c.first) || !strings.Contains(out, c.said) {
			t.Errorf("%q found:\n%s\nwant message %s, said %s", c.query, out, c.first, c.said)
		}
	}
	// A question of nothing but the time before an event: what was said just before it,
	// though no word of it is in them.
	// Typed in lower case as a chat is, the name is still a name.
	for _, q := range []string{"what did Alice do before the trip to Chicago?", "what did alice do before the trip to chicago"} {
		out = mustCLI(t, h, "memory", "search", "--config", h.dir, "--chat", "1001", "-q", q, "--at", "2024-05-28 09:00", "-k", "3")
		if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 3 || !strings.Contains(lines[0], "#3") || !strings.Contains(lines[1], "#2") || !strings.Contains(lines[2], "#1") {
			t.Errorf("%s found:\n%s\nwant the trip (#3), then #2 and #1", q, out)
		}
	}
	// Times said in Ukrainian or Russian bound the search as English ones do: the message
	// of last week first, though the newer one says "стоматолог" twice.
	uk := filepath.Join(t.TempDir(), "uk.jsonl")
	write(t, uk, `{"id": 1, "time": "2024-05-20T10:00:00Z", "sender_id": 1001, "sender_name": "Olena", "text": "Стоматолог переніс мій прийом на п'ятницю"}
{"id": 2, "time": "2024-05-27T10:00:00Z", "sender_id": 1001, "sender_name": "Olena", "text": "Знову стоматолог: стоматолог поставив пломбу"}
`)
	mustCLI(t, h, "import", "--config", h.dir, "--chat", "1002", uk)
	for _, q := range []string{"що казав стоматолог минулого тижня", "что сказал стоматолог на прошлой неделе"} {
		out = mustCLI(t, h, "memory", "search", "--config", h.dir, "--chat", "1002", "-q", q, "--at", "2024-05-28 09:00", "-k", "1")
		if !strings.Contains(out, "#1") || !strings.Contains(out, "Mon 20 May 2024 10:00, 8 days ago") {
			t.Errorf("%q (asked 28 May) found:\n%s\nwant message 1 of 20 May, with when it was said", q, out)
		}
	}
	// A question that names only a time finds what was said then.
	for _, c := range []struct{ chat, query, first string }{
		{"1001", "what happened last week", "#4"},
		{"1002", "що було минулого тижня", "#1"},
	} {
		out = mustCLI(t, h, "memory", "search", "--config", h.dir, "--chat", c.chat, "-q", c.query, "--at", "2024-05-28 09:00", "-k", "1")
		if !strings.Contains(out, c.first) || !strings.Contains(out, "Mon 20 May 2024") {
			t.Errorf("%q (asked 28 May) found:\n%s\nwant message %s, said Monday 20 May", c.query, out, c.first)
		}
	}
	// A time nothing matching was said in: the results are other times', and stderr says
	// so; stdout stays the results alone, and --json (for scripts) says nothing else.
	search := func(args ...string) (stdout, stderr string) {
		stdout, stderr, code := mynahSplit(t, h, append([]string{"memory", "search", "--config", h.dir, "--chat", "1001", "-q", "the dentist yesterday", "--at", "2024-05-24 09:00", "-k", "1"}, args...)...)
		if code != 0 {
			t.Fatalf("the dentist yesterday %v: exit %d\n%s", args, code, stderr)
		}
		return stdout, stderr
	}
	stdout, stderr := search()
	if want := `found nothing said on Thu 23 May 2024 for "the dentist yesterday"; the results are from other times`; !strings.Contains(stderr, want) || strings.Count(stdout, "\n") != 1 || !strings.Contains(stdout, "#4") {
		t.Errorf("the dentist yesterday (asked 24 May): stdout %q, stderr %q; want message 4 on stdout, %q on stderr", stdout, stderr, want)
	}
	stdout, stderr = search("--json")
	if err := json.Unmarshal([]byte(stdout), &items); err != nil || len(items) != 1 || stderr != "" {
		t.Errorf("the dentist yesterday --json: %v\nstdout %s\nstderr %q, want one result and nothing on stderr", err, stdout, stderr)
	}
	// --at searches as of then: the dentist's later message had not been said.
	out = mustCLI(t, h, "memory", "search", "--config", h.dir, "--chat", "1001", "-q", "dentist", "--at", "2024-05-21 09:00")
	if !strings.Contains(out, "#4") || strings.Contains(out, "#5") {
		t.Errorf("the dentist --at 21 May found:\n%s\nwant message 4 (20 May), not 5 (27 May)", out)
	}
	// A mistyped word finds the word the chat has one edit from it.
	out = mustCLI(t, h, "memory", "search", "--config", h.dir, "-q", "the dnetist", "-k", "2")
	if !strings.Contains(out, "#4") || !strings.Contains(out, "#5") {
		t.Errorf("a search for the dnetist found:\n%s\nwant the dentist's messages 4 and 5", out)
	}
	// Two mistyped words: the compound searched for them ("fillngdentst") does not take
	// the place of either.
	out = mustCLI(t, h, "memory", "search", "--config", h.dir, "-q", "fillng dentst", "-k", "2")
	if !strings.Contains(out, "#4") || !strings.Contains(out, "#5") {
		t.Errorf("a search for fillng dentst found:\n%s\nwant the dentist's messages 4 and 5", out)
	}
	// Beside a word that matches, a word with two letters swapped is read as the chat's word.
	out = mustCLI(t, h, "memory", "search", "--config", h.dir, "-q", "filling at the dnetist", "-k", "2")
	if !strings.Contains(out, "#4") || !strings.Contains(out, "#5") {
		t.Errorf("a search for filling at the dnetist found:\n%s\nwant the dentist's messages 4 and 5", out)
	}
	if out, code := mynahCLI(t, h, "memory", "search", "--config", h.dir, "-q", "x", "--at", "next tuesday"); code == 0 || !strings.Contains(out, "--at") {
		t.Errorf("a bad --at: exit %d\n%s", code, out)
	}
	// The words may be the arguments, quoted or not, as a newcomer first types them.
	for _, words := range [][]string{{"the dentist"}, {"the", "dentist"}} {
		out = mustCLI(t, h, append([]string{"memory", "search", "--config", h.dir, "--chat", "1001", "--at", "2024-05-21 09:00", "-k", "1"}, words...)...)
		if !strings.Contains(out, "#4") {
			t.Errorf("memory search %q found:\n%s\nwant the dentist's message 4", words, out)
		}
	}
	// Nothing found: a chat the agent has none of, or a query of nothing but everyday
	// words, says why on stderr; a chat where nothing matched, nothing more.
	for _, c := range []struct{ chat, query, note string }{
		{"1009", "heron", "Mynah has no chat 1009"},
		{"1001", "heron", ""},
		{"1001", "what did I do?", `every word of "what did I do?" is too common to search for`},
	} {
		stdout, stderr, code := mynahSplit(t, h, "memory", "search", "--config", h.dir, "--chat", c.chat, c.query)
		if code != 0 || strings.TrimSpace(stdout) != "nothing found" || c.note == "" && stderr != "" || !strings.Contains(stderr, c.note) {
			t.Errorf("a search of chat %s for %q: exit %d, stdout %q, stderr %q; want nothing found, and on stderr %q", c.chat, c.query, code, stdout, stderr, c.note)
		}
	}
	if out, code := mynahCLI(t, h, "memory", "search", "--config", h.dir); code == 0 || !strings.Contains(out, "nothing to search for") {
		t.Errorf("memory search without words: exit %d\n%s", code, out)
	}
}

// TestMemorySearchBusyChat: in a chat busy enough that the words of a time are too common
// to rank all their matches (a message every hour: 2,400 say "2023", 720 say "April"), a
// question that names only a time still finds what was said then, not the month's newest.
func TestMemorySearchBusyChat(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	path := filepath.Join(t.TempDir(), "busy.jsonl")
	var b strings.Builder
	start := time.Date(2023, 3, 1, 0, 0, 0, 0, time.UTC)
	for i := range 2400 {
		fmt.Fprintf(&b, `{"id": %d, "time": %q, "sender_id": 1001, "sender_name": "Alice", "text": "status report number %d"}`+"\n",
			i+1, start.Add(time.Duration(i)*time.Hour).Format(time.RFC3339), i+1)
	}
	write(t, path, b.String())
	mustCLI(t, h, "import", "--config", h.dir, "--chat", "1003", path)
	// Asked Saturday 15 April: last week is Monday 3 to Sunday 9 April, messages 793-960.
	out := mustCLI(t, h, "memory", "search", "--config", h.dir, "--chat", "1003", "-q", "what happened last week", "--at", "2023-04-15 12:00", "-k", "5", "--json")
	type item struct {
		MessageID int64 `json:"message_id"`
	}
	var items []item
	if err := json.Unmarshal([]byte(out), &items); err != nil {
		t.Fatalf("--json: %v\n%s", err, out)
	}
	if len(items) != 5 || slices.ContainsFunc(items, func(it item) bool { return it.MessageID < 793 || it.MessageID > 960 }) {
		t.Errorf("what happened last week (asked 15 April) found %+v, want 5 of messages 793-960 (3-9 April)", items)
	}
}

// TestBenchMemoryCLI: `mynah bench memory` measures one half of the conversations with
// --half, and with --ablate the ranking without the features named.
func TestBenchMemoryCLI(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	conv := func(id, speaker string, words ...string) string {
		var turns []string
		for i, w := range words {
			turns = append(turns, fmt.Sprintf(`{"speaker": %q, "dia_id": "D1:%d", "text": "I like %s"}`, speaker, i+1, w))
		}
		return fmt.Sprintf(`{"sample_id": %q, "conversation": {"speaker_a": %q, "speaker_b": "Bo",
			"session_1_date_time": "1:56 pm on 8 May, 2023", "session_1": [%s]},
			"qa": [{"question": "Who likes %s?", "category": 4, "evidence": ["D1:1"]}]}`, id, speaker, strings.Join(turns, ","), words[0])
	}
	path := filepath.Join(t.TempDir(), "locomo.json")
	write(t, path, "["+conv("one", "Ann", "herons", "tea")+","+conv("two", "Cy", "owls", "jam")+"]")
	out := mustCLI(t, h, "bench", "memory", "--locomo", path, "--half", "b", "--k", "1", "--json")
	var res struct {
		Conversations int `json:"conversations"`
		Results       []struct {
			Set        string    `json:"set"`
			Questions  int       `json:"questions"`
			TurnRecall []float64 `json:"turn_recall"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("--json: %v\n%s", err, out)
	}
	if res.Conversations != 1 || res.Results[0].Questions != 1 || res.Results[0].TurnRecall[0] != 1 {
		t.Errorf("--half b: %s, want the second conversation's one question, found", out)
	}
	if out := mustCLI(t, h, "bench", "memory", "--locomo", path, "--ablate", "all"); !strings.Contains(out, "2 conversations") {
		t.Errorf("--ablate all:\n%s", out)
	}
	if out, code := mynahCLI(t, h, "bench", "memory", "--locomo", path, "--ablate", "magic"); code == 0 || !strings.Contains(out, "neighbours") {
		t.Errorf("--ablate magic: exit %d\n%s", code, out)
	}
	if out, code := mynahCLI(t, h, "bench", "memory", "--locomo", path, "--half", "C"); code == 0 || !strings.Contains(out, "want A or B") {
		t.Errorf("--half C: exit %d\n%s", code, out)
	}
}

// TestBenchMemoryFeatures: `mynah bench memory --features` measures, on each half, the
// default ranking, plain BM25 and each feature both ways, with the same figures as the
// runs of one ranking (--half, --ablate), each change from the ranking it is compared with.
func TestBenchMemoryFeatures(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	path := filepath.Join(t.TempDir(), "locomo.json")
	turn := locomoTurn
	conv := func(id, a, b, q string, evidence int, turns ...string) string {
		return fmt.Sprintf(`{"sample_id": %q, "conversation": {"speaker_a": %q, "speaker_b": %q,
			"session_1_date_time": "1:56 pm on 8 May, 2023", "session_1": [%s]},
			"qa": [{"question": %q, "category": 4, "evidence": ["D1:%d"]}]}`, id, a, b, strings.Join(turns, ","), q, evidence)
	}
	// The answer to "What did Ann think of the herons?" is Ann's short reply after Bo names
	// herons: plain BM25 finds Bo's line first; the default finds Ann's through the
	// conversation before a short message (feature "previous") and who said it.
	write(t, path, "["+conv("one", "Ann", "Bo", "What did Ann think of the herons?", 2,
		turn("Bo", 1, "Look, herons on the lake by the old mill today"), turn("Ann", 2, "Gorgeous!"), turn("Bo", 3, "Lunch?"))+","+
		conv("two", "Cy", "Di", "Who likes owls?", 1, turn("Cy", 1, "I like owls"), turn("Di", 2, "I like jam"))+"]")
	type cell struct {
		K      int     `json:"k"`
		Core   float64 `json:"core"`
		Change float64 `json:"change"`
	}
	var res struct {
		Rankings []struct {
			Name   string            `json:"name"`
			Halves map[string][]cell `json:"halves"`
		} `json:"rankings"`
	}
	// stdout is the report alone; progress goes to stderr.
	cmd := exec.Command(os.Args[0], "bench", "memory", "--locomo", path, "--features", "--k", "1", "--json")
	cmd.Args[0], cmd.Env = "mynah", h.env
	var errb strings.Builder
	cmd.Stderr = &errb
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("--features --json: %v\n%s", err, errb.String())
	}
	if err := json.Unmarshal(stdout, &res); err != nil {
		t.Fatalf("--features --json: %v\n%s", err, stdout)
	}
	if !strings.Contains(errb.String(), "half B: conversation 1 of 1 asked") {
		t.Errorf("--features: stderr %q, want its progress", errb.String())
	}
	got := map[string]map[string]cell{}
	for _, r := range res.Rankings {
		got[r.Name] = map[string]cell{}
		for half, cells := range r.Halves {
			if len(cells) != 1 || cells[0].K != 1 {
				t.Errorf("%s, half %s: %+v, want one cell at k=1", r.Name, half, cells)
				continue
			}
			got[r.Name][half] = cells[0]
		}
	}
	if n := len(memory.Features())*2 + 2; len(got) != n {
		t.Errorf("--features measured %d rankings, want %d (default, plain BM25, each feature both ways)", len(got), n)
	}
	for half, args := range map[string][]string{"A": {"--half", "a"}, "B": {"--half", "b"}} {
		def := benchTurnRecall(t, h, append([]string{"--locomo", path, "--k", "1"}, args...)...)
		plain := benchTurnRecall(t, h, append([]string{"--locomo", path, "--k", "1", "--ablate", "all"}, args...)...)
		without := benchTurnRecall(t, h, append([]string{"--locomo", path, "--k", "1", "--ablate", "previous"}, args...)...)
		if g := got["default"][half]; g.Core != def || g.Change != 0 {
			t.Errorf("half %s: default %+v, want recall %v as bench memory finds, no change", half, g, def)
		}
		if g := got["plain BM25"][half]; g.Core != plain {
			t.Errorf("half %s: plain BM25 %+v, want recall %v as --ablate all finds", half, g, plain)
		}
		if g := got["default without previous"][half]; g.Core != without || g.Change != without-def {
			t.Errorf("half %s: default without previous %+v, want recall %v (--ablate previous), change %v", half, g, without, without-def)
		}
		if g := got["plain BM25 with previous"][half]; g.Change != g.Core-plain {
			t.Errorf("half %s: plain BM25 with previous %+v, want its change from plain BM25 (%v)", half, g, plain)
		}
	}
	if def, without := got["default"]["A"], got["default without previous"]["A"]; def.Core != 1 || without.Core != 0 || without.Change != -1 {
		t.Errorf("half A: default %+v, without previous %+v; want Ann's reply found only with previous", def, without)
	}
	out := mustCLI(t, h, "bench", "memory", "--locomo", path, "--features", "--half", "a")
	for _, want := range []string{"turn recall@10", "half A", "default without previous", "plain BM25 with previous"} {
		if !strings.Contains(out, want) {
			t.Errorf("--features --half a: no %q in\n%s", want, out)
		}
	}
	if strings.Contains(out, "half B") {
		t.Errorf("--features --half a measured half B too:\n%s", out)
	}
	if out, code := mynahCLI(t, h, "bench", "memory", "--locomo", path, "--features", "--ablate", "context"); code == 0 || !strings.Contains(out, "leave out --ablate") {
		t.Errorf("--features --ablate: exit %d\n%s", code, out)
	}
}

// locomoTurn is turn i of session 1 of a LoCoMo conversation, as the release writes it.
func locomoTurn(speaker string, i int, text string) string {
	return fmt.Sprintf(`{"speaker": %q, "dia_id": "D1:%d", "text": %q}`, speaker, i, text)
}

// benchTurnRecall runs mynah bench memory --json with args and returns its turn recall
// over categories 1-4 at the first cut-off.
func benchTurnRecall(t *testing.T, h *harness, args ...string) float64 {
	t.Helper()
	out := mustCLI(t, h, append([]string{"bench", "memory", "--json"}, args...)...)
	var res struct {
		Results []struct {
			TurnRecall []float64 `json:"turn_recall"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Results) == 0 {
		t.Fatalf("mynah bench memory --json %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return res.Results[0].TurnRecall[0]
}

// TestBenchMemoryStoreEach: `mynah bench memory --store-each` weighs each conversation's
// words within it alone. A conversation full of herons, imported before one where herons
// are the rare word, makes "herons" common in the shared database, so plain BM25 there
// ranks a jam turn over the heron one; in a database of its own, the heron turn wins.
func TestBenchMemoryStoreEach(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	turn := locomoTurn
	conv := func(id, speaker, question string, turns ...string) string {
		return fmt.Sprintf(`{"sample_id": %q, "conversation": {"speaker_a": %q, "speaker_b": "Bo",
			"session_1_date_time": "1:56 pm on 8 May, 2023", "session_1": [%s]},
			"qa": [{"question": %q, "category": 4, "evidence": ["D1:1"]}]}`, id, speaker, strings.Join(turns, ","), question)
	}
	herons := []string{turn("Cy", 1, "I watched owls at dusk")}
	for i := 2; i <= 9; i++ {
		herons = append(herons, turn("Cy", i, fmt.Sprintf("herons everywhere, number %d", i)))
	}
	path := filepath.Join(t.TempDir(), "locomo.json")
	write(t, path, "["+conv("one", "Cy", "Who watched owls?", herons...)+","+
		conv("two", "Ann", "Who saw herons or jam?", turn("Ann", 1, "I saw herons"), turn("Ann", 2, "I saw jam"), turn("Ann", 3, "more jam"))+"]")
	recall := func(args ...string) float64 {
		t.Helper()
		return benchTurnRecall(t, h, append([]string{"--locomo", path, "--ablate", "all", "--k", "1"}, args...)...)
	}
	if got := recall(); got != 0.5 {
		t.Errorf("one database: turn recall@1 = %.2f, want 0.5 (herons common there, the jam turn first)", got)
	}
	if got := recall("--store-each"); got != 1 {
		t.Errorf("--store-each: turn recall@1 = %.2f, want 1 (herons rare within the second conversation)", got)
	}
}

// TestMemorySearchToolSaysTimeMissed: through the serving binary, the model that searches
// for what was said yesterday, when only a month-old message matches, reads that the
// results are from other times before the result itself.
func TestMemorySearchToolSaysTimeMissed(t *testing.T) {
	// No summaries: their calls would take the model's scripted replies.
	h := newHarness(t, harnessOptions{Front: "summaries: {week_every: 0s, month_every: 0s}\n"})
	path := filepath.Join(t.TempDir(), "past.jsonl")
	old := time.Now().UTC().AddDate(0, -1, 0)
	// An id above the emulator's: the live message is another one.
	write(t, path, fmt.Sprintf(`{"id": 900000, "time": %q, "sender_id": 1001, "sender_name": "Alice", "text": "the plumber fixed the boiler"}`+"\n", old.Format(time.RFC3339)))
	mustCLI(t, h, "import", "--config", h.dir, "--chat", "1001", path)
	h.llm.SetDefault(func(llmtest.Recorded) llmtest.Reply { return llmtest.Reply{Text: "ok"} })
	h.start()
	h.llm.Push(
		llmtest.Reply{ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "memory_search", Arguments: json.RawMessage(`{"query":"the boiler yesterday"}`)}}},
		llmtest.Reply{Text: "Not yesterday: a month ago."},
	)
	h.emu.SendPrivate(alice, "what did I say about the boiler yesterday?")
	h.waitSent(alice.ID, 1)
	got := toolResults(h.waitRequests(2)[1])
	if !strings.Contains(got, `Found nothing said on `) || !strings.Contains(got, `for "the boiler yesterday"; the results below are from other times.`) ||
		!strings.Contains(got, "the plumber fixed the boiler") {
		t.Errorf("memory_search result the model read: %q", got)
	}
}

// TestMemorySearchKinds: asked for things of a kind ("what pets does Ann have?"), `mynah
// memory search` finds the messages that name the things (her dog, her cat), which never
// say the kind's word, before one that says it of something else; asked about her pet
// snake, it does not bring up the dog. Asked of two words a chat writes as one ("road
// trip"), it finds the one ("roadtrip").
func TestMemorySearchKinds(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	path := filepath.Join(t.TempDir(), "chat.jsonl")
	var b strings.Builder
	senderID := map[string]int{"Ann": 1001, "Bob": 1002, "Оля": 1003}
	for i, m := range []struct{ sender, text string }{
		{"Ann", "Rex the dog chewed my sofa again"},
		{"Bob", "the pet shop on the corner closed down"},
		{"Ann", "feeding the cat twice a day now, she got fat"},
		{"Ann", "work was long today"},
		{"Bob", "my new guitar arrived"},
		{"Оля", "Мій пес Барсик знову погриз капці"},
		{"Оля", "Сьогодні на роботі був довгий день"},
		{"Оля", "Годую кішку двічі на день"},
		{"Bob", "made my favourite chicken pot pie for dinner"},
		{"Ann", "cooking dinner for Bob tonight, he likes anything"},
		{"Bob", "finally bought a new bell for the bike"},
		{"Bob", "should I buy a new helmet or not"},
		{"Ann", "our roadtrip to the coast took three days"},
		{"Bob", "the road to the lake is closed for repairs"},
		{"Bob", "a business trip to Berlin next week, then a trip home"},
	} {
		fmt.Fprintf(&b, `{"id": %d, "time": "2024-05-%02dT10:00:00Z", "sender_id": %d, "sender_name": %q, "text": %q}`+"\n",
			i+1, i+1, senderID[m.sender], m.sender, m.text)
	}
	write(t, path, b.String())
	mustCLI(t, h, "import", "--config", h.dir, "--chat", "1001", path)
	for _, c := range []struct {
		query, k   string
		want, lack []string
		why        string
	}{
		{"what pets does Ann have?", "2", []string{"#1", "#3"}, nil, "her dog (#1) and her cat (#3)"},
		{"which instrument did Bob get?", "1", []string{"#5"}, nil, "his guitar (#5)"},
		{"Які тварини є в Олі?", "2", []string{"#6", "#8"}, nil, "her dog (#6) and her cat (#8)"},
		{"which meat does Bob like for dinner?", "1", []string{"#9"}, nil, "his chicken pot pie (#9)"},
		// a question asks "did … buy", the chat said "bought"
		{"what did Bob buy for his bike?", "1", []string{"#11"}, nil, "the bell he bought (#11)"},
		{"where is the pet shop?", "3", []string{"#2"}, []string{"#1"}, "the shop (#2), not the dog (#1)"},
		// two words asked, one written: the chat's "roadtrip" for a road trip
		{"when did Ann go on a road trip?", "1", []string{"#13"}, nil, "her roadtrip (#13)"},
	} {
		out := mustCLI(t, h, "memory", "search", "--config", h.dir, "-q", c.query, "-k", c.k)
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s found:\n%s\nwant %s", c.query, out, c.why)
			}
		}
		for _, l := range c.lack {
			if strings.Contains(out, l) {
				t.Errorf("%s found:\n%s\nwant %s", c.query, out, c.why)
			}
		}
	}
}

// TestMemorySearchAsker: in an imported chat with an assistant (known by its answers,
// several times as long as the person's messages, or by its name), a question in the
// first person finds what the person told, not the assistant's restating of it, which
// shares more of its words; a question of "you" finds what the assistant said.
func TestMemorySearchAsker(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	advice := " Most kittens calm down within a day, eat normally again by the next morning, and the best thing to do is to leave the door open and let her come out when she wants."
	type exchange struct{ user, assistant string }
	type ask struct{ query, first, who string }
	for _, c := range []struct {
		chat, how string
		chats     []exchange
		asks      []ask
	}{{"2001", "by its answers, three times as long as the user's", []exchange{
		{"my kitten hid under the chair all evening after the vet", "A kitten often reacts to an injection by hiding for a day or two, so give her a quiet corner and some treats." + advice},
		{"my kitten bit the cable", "A kitten bites cables while teething, so hide them behind the furniture and give her chew toys." + advice},
		{"my kitten scratched the sofa", "A kitten scratches to keep her claws sharp, so put a scratching post next to the sofa." + advice},
		{"what should I cook tonight", "A quick pasta with tomatoes, garlic and basil takes twenty minutes, and a green salad goes well with it." + advice},
	}, []ask{
		{"how did my kitten react at the vet to the injection?", "#1 ", "the user's own message"},
		{"what did you say about a kitten hiding after the vet?", "#2 ", "the assistant's answer"},
	}}, {"2002", "by its name, its answers no longer than the user's", []exchange{
		{"my kitten hid under the chair all evening after the vet gave her a shot", "Hiding after a shot at the vet is common, leave her a quiet corner."},
		{"my kitten bit the charger cable this morning and I had to buy a new one", "Kittens bite cables while teething, hide them behind furniture."},
		{"my kitten keeps scratching the new sofa even though she has a post", "Put the scratching post right next to the sofa and reward her."},
		{"what should I cook tonight for my sister who is vegetarian", "A quick pasta with tomatoes, garlic and basil works well."},
	}, []ask{
		{"where did my kitten hide after the vet?", "#1 ", "the user's own message"},
		{"what did you tell me about the cables?", "#4 ", "the assistant's answer"},
	}}} {
		path := filepath.Join(t.TempDir(), "assistant.jsonl")
		var b strings.Builder
		for i, m := range c.chats {
			at := time.Date(2024, 5, 1+i, 10, 0, 0, 0, time.UTC)
			fmt.Fprintf(&b, `{"id": %d, "time": %q, "sender_id": 5001, "sender_name": "user", "text": %q}`+"\n", 2*i+1, at.Format(time.RFC3339), m.user)
			fmt.Fprintf(&b, `{"id": %d, "time": %q, "sender_id": 5002, "sender_name": "assistant", "text": %q}`+"\n", 2*i+2, at.Add(time.Minute).Format(time.RFC3339), m.assistant)
		}
		write(t, path, b.String())
		mustCLI(t, h, "import", "--config", h.dir, "--chat", c.chat, path)
		for _, a := range c.asks {
			out := mustCLI(t, h, "memory", "search", "--config", h.dir, "--chat", c.chat, "-q", a.query, "-k", "2")
			if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) == 0 || !strings.Contains(lines[0], a.first) {
				t.Errorf("the assistant known %s: %s found:\n%s\nwant %s (%s) first", c.how, a.query, out, a.who, strings.TrimSpace(a.first))
			}
		}
	}
}
