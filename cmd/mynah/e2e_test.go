package main

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mynah-ai/mynah/internal/lane"
	"github.com/mynah-ai/mynah/internal/llm"
	"github.com/mynah-ai/mynah/internal/llm/llmtest"
	"github.com/mynah-ai/mynah/internal/telegram/telegramtest"
	_ "modernc.org/sqlite"
)

var (
	alice = telegramtest.User{ID: 1001, FirstName: "Alice", Username: "alice"}
	bob   = telegramtest.User{ID: 1002, FirstName: "Боб"}
)

func TestPrivateConversation(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	// The first answer takes a noticeable time, so "typing…" is shown meanwhile.
	h.llm.Push(llmtest.Reply{Text: "Hi **Alice**!", Usage: llm.Usage{InputTokens: 50, OutputTokens: 5}, Delay: 2 * lane.TypingAfter},
		llmtest.Reply{Text: "I'm fine."})
	h.start()

	first := h.emu.SendPrivate(alice, "hello there")
	sent := h.waitSent(alice.ID, 1)
	if sent[0].Text != "Hi Alice!" || sent[0].ParseMode != "HTML" || !strings.Contains(sent[0].Raw, "<b>Alice</b>") {
		t.Errorf("first reply = %q (raw %q, parse mode %q), want Markdown rendered as HTML", sent[0].Text, sent[0].Raw, sent[0].ParseMode)
	}
	if sent[0].ReplyTo != 0 {
		t.Errorf("private reply quotes message %d; private answers are plain messages", sent[0].ReplyTo)
	}
	if acts := h.emu.Actions(alice.ID); len(acts) == 0 || acts[0].Action != "typing" {
		t.Errorf("actions = %+v: no typing indicator was shown while the model worked", acts)
	}

	h.emu.SendPrivate(alice, "how are you?")
	h.waitSent(alice.ID, 2)
	reqs := h.waitRequests(2)
	second := reqs[1]
	text := requestText(second)
	for _, want := range []string{"hello there", "Hi Alice!", "how are you?", "message_id=", `name="Alice"`, "Consider responding to message with message_id"} {
		if !strings.Contains(text, want) {
			t.Errorf("second request lacks %q; it should carry the first exchange:\n%s", want, text)
		}
	}
	if second.Turns[1].Role != llm.Assistant {
		t.Errorf("the agent's own reply should be an assistant turn, got %s", second.Turns[1].Role)
	}
	if !strings.Contains(second.System, `You are Mynah, talking in "Alice".`) || !strings.Contains(second.System, "Be friendly.") {
		t.Errorf("system instruction = %q, want role prompt and instructions with variables substituted", second.System)
	}
	if strings.Index(second.System, "Be friendly.") > strings.Index(second.System, "You are Mynah") {
		t.Error("role prompts must come before the agent's instructions")
	}
	_ = first
	h.stop()
}

func TestGroupGating(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	h.llm.SetDefault(func(r llmtest.Recorded) llmtest.Reply { return llmtest.Reply{Text: "answer"} })
	h.start()
	group := telegramtest.Supergroup(-100777, "Bird watchers")
	h.emu.SetMemberCount(group.ID, 42)

	h.emu.SendGroup(group, alice, "anyone up for lunch?")
	h.emu.SendGroup(group, bob, "я за")
	mention := h.emu.SendGroup(group, alice, "@mynah_bot what do mynahs eat?")
	sent := h.waitSent(group.ID, 1)
	if sent[0].ReplyTo != mention.MessageID {
		t.Errorf("reply quotes %d, want the mention %d", sent[0].ReplyTo, mention.MessageID)
	}
	req := h.waitRequests(1)[0]
	text := requestText(req)
	for _, want := range []string{"anyone up for lunch?", "я за", "what do mynahs eat?", `Chat: supergroup "Bird watchers", 42 members.`, "Consider responding to message with message_id " + strconv.Itoa(mention.MessageID)} {
		if !strings.Contains(text, want) {
			t.Errorf("request lacks %q (unaddressed messages are context):\n%s", want, text)
		}
	}

	// Named in Cyrillic, and a reply to the bot's message, both trigger; chatter does not.
	h.emu.SendGroup(group, bob, "Майна, а ти що думаєш?")
	h.waitSent(group.ID, 2)
	h.emu.SendGroup(group, bob, "just chatting")
	h.emu.SendGroup(group, bob, "really?", telegramtest.ReplyTo(sent[0].MessageID))
	h.waitSent(group.ID, 3)

	// In a forum, the answer goes to the topic it was asked in.
	forum := telegramtest.Forum(-100999, "Forum")
	q := h.emu.SendGroup(forum, alice, "@mynah_bot in a topic", telegramtest.InTopic(42))
	if s := h.waitSent(forum.ID, 1); s[0].ThreadID != 42 || s[0].ReplyTo != q.MessageID {
		t.Errorf("forum reply in thread %d replying to %d, want thread 42 replying to %d", s[0].ThreadID, s[0].ReplyTo, q.MessageID)
	}
	h.stop()
	if n := len(h.llm.Requests()); n != 4 {
		t.Errorf("%d model calls, want 4 (chatter must not reach the model)", n)
	}
	if got := usageRows(t, h); got != 4 {
		t.Errorf("%d usage rows recorded, want one per model call (4)", got)
	}
	if n := len(h.emu.Sent(group.ID)); n != 3 {
		t.Errorf("%d replies in the group, want 3", n)
	}
}

// usageRows counts the provider calls recorded in the agent's database.
func usageRows(t *testing.T, h *harness) int {
	t.Helper()
	n, err := strconv.Atoi(h.query("SELECT count(*) FROM usage WHERE agent = 'Mynah' AND input_tokens >= 0")[0][0])
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestCommandsAndReset(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	h.llm.SetDefault(func(r llmtest.Recorded) llmtest.Reply { return llmtest.Reply{Text: "noted"} })
	h.start()
	// The emulator records a call as it arrives, before handling it: wait for the menu.
	eventually(t, "the command menu is registered", func() bool { return len(h.emu.Commands(telegramtest.DefaultToken)) > 0 })
	var names []string
	for _, c := range h.emu.Commands(telegramtest.DefaultToken) {
		names = append(names, c.Command)
	}
	if got := strings.Join(names, ","); got != "start,help,reset,new,memories,forget" {
		t.Errorf("command menu = %s", got)
	}

	h.emu.SendPrivate(alice, "/start")
	if s := h.waitSent(alice.ID, 1); !strings.Contains(s[0].Text, "Mynah") {
		t.Errorf("/start answered %q", s[0].Text)
	}
	h.emu.SendPrivate(alice, "my secret word is pineapple")
	h.waitSent(alice.ID, 2)
	h.emu.SendPrivate(alice, "/reset")
	if s := h.waitSent(alice.ID, 3); !strings.Contains(s[2].Text, "new conversation") {
		t.Errorf("/reset answered %q", s[2].Text)
	}
	h.emu.SendPrivate(alice, "what was my secret word?")
	h.waitSent(alice.ID, 4)
	reqs := h.waitRequests(2)
	if text := requestText(reqs[1]); strings.Contains(text, "pineapple") || strings.Contains(text, "/start") {
		t.Errorf("after /reset the prompt still holds the old session:\n%s", text)
	}
	if n := len(h.llm.Requests()); n != 2 {
		t.Errorf("%d model calls; commands must not call the model", n)
	}

	// In a group, /new@mynah_bot resets; /new@other_bot is someone else's.
	group := telegramtest.Supergroup(-100778, "Team")
	h.emu.SendGroup(group, alice, "/new@other_bot")
	h.emu.SendGroup(group, alice, "/new@mynah_bot")
	if s := h.waitSent(group.ID, 1); !strings.Contains(s[0].Text, "new conversation") {
		t.Errorf("/new@mynah_bot answered %q", s[0].Text)
	}
	h.stop()
	if n := len(h.emu.Sent(group.ID)); n != 1 {
		t.Errorf("%d messages in the group, want 1", n)
	}
}

func TestRestartKeepsHistory(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	h.llm.SetDefault(func(r llmtest.Recorded) llmtest.Reply { return llmtest.Reply{Text: "reply to: " + r.LastUserText()} })
	h.start()
	h.emu.SendPrivate(alice, "remember the blue door")
	h.waitSent(alice.ID, 1)
	h.stop()

	h.start()
	h.emu.SendPrivate(alice, "which door?")
	sent := h.waitSent(alice.ID, 2)
	reqs := h.waitRequests(2)
	if text := requestText(reqs[1]); !strings.Contains(text, "remember the blue door") {
		t.Errorf("history lost across restart:\n%s", text)
	}
	h.stop()
	if len(h.llm.Requests()) != 2 || len(h.emu.Sent(alice.ID)) != 2 {
		t.Errorf("after restart: %d model calls, %d replies; want 2 and 2 (nothing re-processed)", len(h.llm.Requests()), len(h.emu.Sent(alice.ID)))
	}
	_ = sent
}

func TestEditedMessageUpdatesHistory(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	h.llm.SetDefault(func(r llmtest.Recorded) llmtest.Reply { return llmtest.Reply{Text: "ok"} })
	h.start()
	m := h.emu.SendPrivate(alice, "I live in Lvov")
	h.waitSent(alice.ID, 1)
	if _, err := h.emu.EditMessage(alice.ID, m.MessageID, "I live in Lviv"); err != nil {
		t.Fatal(err)
	}
	h.emu.SendPrivate(alice, "where do I live?")
	h.waitSent(alice.ID, 2)
	text := requestText(h.waitRequests(2)[1])
	if !strings.Contains(text, "I live in Lviv") || strings.Contains(text, "Lvov") {
		t.Errorf("edit not applied to the stored message:\n%s", text)
	}
	h.stop()
	if n := len(h.llm.Requests()); n != 2 {
		t.Errorf("%d model calls; an edit must not trigger an answer", n)
	}
}

func TestLongReplySplit(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	var md strings.Builder
	for i := 0; i < 60; i++ {
		md.WriteString("Paragraph with **bold** text, `code` & <angle> brackets, and Cyrillic: привіт світе. ")
		md.WriteString(strings.Repeat("More words to make it long. ", 6))
		md.WriteString("\n\n")
	}
	md.WriteString("```go\n" + strings.Repeat("fmt.Println(\"hello, world\") // a line of code\n", 120) + "```\n")
	h.llm.Push(llmtest.Reply{Text: md.String()})
	h.start()
	h.emu.SendPrivate(alice, "write a lot")
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	// Wait until the whole answer (it ends with the code block) is delivered.
	for {
		sent := h.emu.Sent(alice.ID)
		if len(sent) > 0 && strings.Contains(sent[len(sent)-1].Text, "a line of code") && len(sent) >= 4 {
			break
		}
		if _, err := h.emu.WaitSent(ctx, alice.ID, len(sent)+1); err != nil {
			t.Fatalf("long reply not delivered: %d parts\n%s", len(sent), h.logs.String())
		}
	}
	h.stop()
	sent := h.emu.Sent(alice.ID)
	total := 0
	for i, s := range sent {
		if n := utf8.RuneCountInString(s.Text); n > 4096 || n == 0 {
			t.Errorf("part %d has %d characters", i, n)
		}
		if s.ParseMode != "HTML" {
			t.Errorf("part %d sent as %q, want valid HTML (the emulator rejects invalid HTML)", i, s.ParseMode)
		}
		total += utf8.RuneCountInString(s.Text)
	}
	if total < 20000 {
		t.Errorf("only %d characters delivered across %d parts", total, len(sent))
	}
}

func TestHTMLFallbackAndFloodControl(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	h.llm.Push(llmtest.Reply{Text: "**first**"}, llmtest.Reply{Text: "second"})
	h.start()
	h.emu.FailNext("sendMessage", 1, 400, "Bad Request: can't parse entities: Unsupported start tag \"foo\" at byte offset 0", 0)
	h.emu.SendPrivate(alice, "one")
	sent := h.waitSent(alice.ID, 1)
	if sent[0].Text != "first" || sent[0].ParseMode != "" {
		t.Errorf("after a parse error the part should be resent as plain text, got %q mode %q", sent[0].Text, sent[0].ParseMode)
	}
	h.emu.FailNext("sendMessage", 1, 429, "Too Many Requests: retry after 1", 1)
	h.emu.SendPrivate(alice, "two")
	sent = h.waitSent(alice.ID, 2)
	if sent[1].Text != "second" {
		t.Errorf("after 429 the part should be sent once, got %q", sent[1].Text)
	}

	// A group reply whose target vanished is sent as a plain message.
	group := telegramtest.Supergroup(-100555, "Vanishing")
	h.llm.Push(llmtest.Reply{Text: "third"})
	h.emu.FailNext("sendMessage", 1, 400, "Bad Request: message to be replied not found", 0)
	h.emu.SendGroup(group, alice, "@mynah_bot quick, before I delete this")
	if s := h.waitSent(group.ID, 1); s[0].Text != "third" || s[0].ReplyTo != 0 {
		t.Errorf("after 'message to be replied not found' got %q replying to %d, want a plain message", s[0].Text, s[0].ReplyTo)
	}
	h.stop()
	if n := len(h.emu.Sent(alice.ID)); n != 2 {
		t.Errorf("%d messages sent, want exactly 2", n)
	}
}

func TestProviderFailureApologises(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	h.llm.Push(
		llmtest.Reply{Status: 429, RetryAfter: "1", Message: "slow down"},
		llmtest.Reply{Text: "made it after a retry"},
		llmtest.Reply{Status: 400, Message: "secret internal detail: invalid request"},
		llmtest.Reply{Text: "back to normal"},
	)
	h.start()
	h.emu.SendPrivate(alice, "first")
	if s := h.waitSent(alice.ID, 1); s[0].Text != "made it after a retry" {
		t.Errorf("429 with Retry-After should be retried, got %q", s[0].Text)
	}
	h.emu.SendPrivate(alice, "second")
	s := h.waitSent(alice.ID, 2)
	if !strings.Contains(s[1].Text, "Sorry") || strings.Contains(s[1].Text, "secret internal detail") {
		t.Errorf("provider failure should give a short apology, got %q", s[1].Text)
	}
	h.emu.SendPrivate(alice, "third")
	if s := h.waitSent(alice.ID, 3); s[2].Text != "back to normal" {
		t.Errorf("the next message should work, got %q", s[2].Text)
	}
	h.stop()
	if !h.waitLog("model call failed") {
		t.Error("the provider failure was not logged")
	}
}

func TestBlockedUser(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	h.llm.SetDefault(func(r llmtest.Recorded) llmtest.Reply { return llmtest.Reply{Text: "hi"} })
	h.start()
	h.emu.Block(alice.ID)
	h.emu.SendPrivate(alice, "hello")
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	if _, err := h.emu.WaitCalls(ctx, "sendMessage", 1); err != nil {
		t.Fatal(err)
	}
	// Unblock only once mynah has taken the refusal in: a call is recorded as it
	// arrives, before the emulator answers it.
	for !strings.Contains(h.logs.String(), "user blocked the bot") {
		if ctx.Err() != nil {
			t.Fatal("mynah never logged the refusal")
		}
		time.Sleep(10 * time.Millisecond)
	}
	h.emu.Unblock(alice.ID)
	h.emu.SendPrivate(alice, "I'm back")
	sent := h.waitSent(alice.ID, 1)
	h.stop()
	if len(sent) != 1 || len(h.emu.CallsTo("sendMessage")) != 2 {
		t.Errorf("blocked reply must be dropped, not retried: %d sent, %d sendMessage calls", len(sent), len(h.emu.CallsTo("sendMessage")))
	}
}

func TestShutdownFinishesRunningTurn(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	h.llm.Push(llmtest.Reply{Text: "slow answer", Delay: 1500 * time.Millisecond})
	h.start()
	h.emu.SendPrivate(alice, "take your time")
	h.waitRequests(1)
	h.stop() // SIGTERM while the model is still answering
	if sent := h.emu.Sent(alice.ID); len(sent) != 1 || sent[0].Text != "slow answer" {
		t.Errorf("the running turn's reply was not delivered before exit: %+v", sent)
	}
}

func TestWebhook(t *testing.T) {
	addr := freePort(t)
	h := newHarness(t, harnessOptions{YAML: "telegram:\n  mode: webhook\n  webhook:\n    listen: " + addr + "\n    public_url: http://" + addr + "\n    path: /tg\n    secret: s3cret-Token_1\n"})
	h.llm.SetDefault(func(r llmtest.Recorded) llmtest.Reply { return llmtest.Reply{Text: "via webhook"} })
	h.start()
	h.emu.SendPrivate(alice, "hello")
	if s := h.waitSent(alice.ID, 1); s[0].Text != "via webhook" {
		t.Errorf("reply = %q", s[0].Text)
	}
	for _, secret := range []string{"", "wrong"} {
		req, _ := http.NewRequest("POST", "http://"+addr+"/tg/Mynah", strings.NewReader(`{"update_id":1}`))
		if secret != "" {
			req.Header.Set("X-Telegram-Bot-Api-Secret-Token", secret)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("secret %q: status %d, want 401", secret, resp.StatusCode)
		}
	}
	h.stop()

	// Back to polling: the webhook is deleted at start.
	write(t, h.dir+"/mynah.yaml", "data_dir: data\n")
	h.start()
	if calls := h.emu.CallsTo("deleteWebhook"); len(calls) == 0 {
		t.Error("switching to polling did not delete the webhook")
	}
	h.emu.SendPrivate(alice, "polling again")
	h.waitSent(alice.ID, 2)
	h.stop()
}

// TestSplitPasteGetsOneAnswer: Telegram splits a long paste into several messages; the
// agent answers once, having seen all of it.
func TestSplitPasteGetsOneAnswer(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	h.llm.SetDefault(func(r llmtest.Recorded) llmtest.Reply { return llmtest.Reply{Text: "read it all"} })
	h.start()
	h.emu.SendPrivate(alice, "START "+strings.Repeat("lorem ipsum dolor sit amet ", 150)) // ~4000 characters
	h.emu.SendPrivate(alice, "and that is the END of my paste")
	sent := h.waitSent(alice.ID, 1)
	h.stop()
	reqs := h.llm.Requests()
	if len(reqs) != 1 || len(h.emu.Sent(alice.ID)) != 1 {
		t.Fatalf("%d model calls and %d replies for one split paste, want 1 and 1", len(reqs), len(h.emu.Sent(alice.ID)))
	}
	if text := requestText(reqs[0]); !strings.Contains(text, "START") || !strings.Contains(text, "END of my paste") {
		t.Errorf("the answer did not see the whole paste")
	}
	_ = sent
}

// TestStreamingDrafts: in a private chat a slow answer is shown as a growing draft, then
// sent once as a message; in a group it is one message, posted early and edited in place
// until it holds the whole answer.
func TestStreamingDrafts(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	answer := "First part of a considered answer. " + strings.Repeat("More thoughts. ", 20) + "The end."
	h.llm.SetDefault(func(r llmtest.Recorded) llmtest.Reply {
		return llmtest.Reply{Text: answer, ChunkDelay: 700 * time.Millisecond}
	})
	h.start()
	h.emu.SendPrivate(alice, "think about it")
	sent := h.waitSent(alice.ID, 1)
	group := telegramtest.Supergroup(-100888, "No drafts here")
	mention := h.emu.SendGroup(group, alice, "@mynah_bot and here?")
	h.waitSent(group.ID, 1)
	deadline := time.Now().Add(30 * time.Second)
	for h.emu.Sent(group.ID)[0].Text != answer && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	h.stop()

	inGroup := h.emu.Sent(group.ID)
	if len(inGroup) != 1 || inGroup[0].Text != answer || inGroup[0].ReplyTo != mention.MessageID {
		t.Fatalf("group got %+v, want one message replying to the mention, edited into the whole answer", inGroup)
	}
	edits := 0
	for _, c := range h.emu.CallsTo("editMessageText") {
		if fmt.Sprint(c.Params["chat_id"]) == strconv.FormatInt(group.ID, 10) {
			edits++
			if fmt.Sprint(c.Params["message_id"]) != strconv.Itoa(inGroup[0].MessageID) {
				t.Errorf("edit of message %v, want only the preview %d", c.Params["message_id"], inGroup[0].MessageID)
			}
		}
	}
	if edits == 0 {
		t.Error("the group preview was never edited into the answer")
	}
	for _, c := range h.emu.CallsTo("sendMessage") {
		if text, _ := c.Params["text"].(string); fmt.Sprint(c.Params["chat_id"]) == strconv.FormatInt(group.ID, 10) &&
			(text == answer || !strings.HasPrefix(answer, text)) {
			t.Errorf("the group message was posted as %q, want an early prefix of the answer", text)
		}
	}

	drafts := h.emu.CallsTo("sendMessageDraft")
	if len(drafts) == 0 {
		t.Fatal("no draft was shown while the answer streamed")
	}
	for _, d := range drafts {
		text, _ := d.Params["text"].(string)
		if !strings.HasPrefix(answer, text) || text == answer {
			t.Errorf("draft %q is not a growing prefix of the answer", text)
		}
		if chat := d.Params["chat_id"]; fmt.Sprint(chat) != strconv.FormatInt(alice.ID, 10) {
			t.Errorf("draft sent to chat %v, want only the private chat", chat)
		}
	}
	if len(sent) != 1 || sent[0].Text != answer {
		t.Errorf("final message %q, want the whole answer once", sent[0].Text)
	}
	if !h.llm.Requests()[0].Stream {
		t.Error("the private answer was not requested as a stream")
	}
	if !h.llm.Requests()[1].Stream {
		t.Error("the group answer was not requested as a stream")
	}
}

// TestBurstByDefaultGetsOneAnswer: with the defaults, five messages sent in a burst get
// one answer (issue 15), from a model call that saw all five. Nothing holds the first
// message back any more: its call starts at once, and each newer message of the burst
// replaces the turn under way (cancelling its call) until the answer shows (issue 12).
// The model takes a while, as a real one does.
func TestBurstByDefaultGetsOneAnswer(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	h.llm.SetDefault(func(r llmtest.Recorded) llmtest.Reply {
		return llmtest.Reply{Text: "one answer", Delay: 2 * time.Second}
	})
	h.start()
	for i := 1; i <= 5; i++ {
		h.emu.SendPrivate(alice, "part "+strconv.Itoa(i))
	}
	h.waitSent(alice.ID, 1)
	h.stop()
	if n := len(h.emu.Sent(alice.ID)); n != 1 {
		t.Errorf("%d replies to a burst of 5, want 1", n)
	}
	reqs := h.llm.Requests()
	text := requestText(reqs[len(reqs)-1])
	for i := 1; i <= 5; i++ {
		if !strings.Contains(text, "part "+strconv.Itoa(i)) {
			t.Errorf("the answering call did not see part %d", i)
		}
	}
}

// TestBurstWithDebounceCostsOneCall: five messages typed in quick succession get one
// answer, from one model call, when the agent debounces.
func TestBurstWithDebounceCostsOneCall(t *testing.T) {
	h := newHarness(t, harnessOptions{Front: "debounce: 1s\n"})
	h.llm.SetDefault(func(r llmtest.Recorded) llmtest.Reply { return llmtest.Reply{Text: "one answer to all of it"} })
	h.start()
	for i := 1; i <= 5; i++ {
		h.emu.SendPrivate(alice, "part "+strconv.Itoa(i)+" of my question")
	}
	h.waitSent(alice.ID, 1)
	h.stop()
	if n := len(h.llm.Requests()); n != 1 {
		t.Fatalf("%d model calls for a burst of 5, want 1", n)
	}
	if n := len(h.emu.Sent(alice.ID)); n != 1 {
		t.Errorf("%d replies, want 1", n)
	}
	text := requestText(h.llm.Requests()[0])
	for i := 1; i <= 5; i++ {
		if !strings.Contains(text, "part "+strconv.Itoa(i)+" of my question") {
			t.Errorf("the answer did not see part %d", i)
		}
	}
}
