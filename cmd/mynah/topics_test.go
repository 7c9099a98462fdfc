package main

import (
	"strings"
	"testing"

	"github.com/mynah-ai/mynah/internal/llm/llmtest"
	"github.com/mynah-ai/mynah/internal/telegram/telegramtest"
)

// TestTopicSessions: in a forum supergroup, /new in one topic starts a new conversation in
// that topic only; the prompt of another topic still holds what was said there.
func TestTopicSessions(t *testing.T) {
	h := newHarness(t, harnessOptions{Access: `{private: open, groups: {allow: ["*"], trigger: always}}`})
	h.llm.SetDefault(func(r llmtest.Recorded) llmtest.Reply { return llmtest.Reply{Text: "noted"} })
	h.start()
	forum := telegramtest.Forum(-100555, "Club")
	const books, films = 11, 22

	h.emu.SendGroup(forum, alice, "the book password is walrus", telegramtest.InTopic(books))
	h.waitSent(forum.ID, 1)
	h.emu.SendGroup(forum, alice, "the film password is heron", telegramtest.InTopic(films))
	h.waitSent(forum.ID, 2)
	h.emu.SendGroup(forum, alice, "/new", telegramtest.InTopic(books))
	if s := h.waitSent(forum.ID, 3); !strings.Contains(s[2].Text, "new conversation") || s[2].ThreadID != books {
		t.Fatalf("/new answered %q in topic %d, want the reset text in topic %d", s[2].Text, s[2].ThreadID, books)
	}
	h.emu.SendGroup(forum, alice, "books: what was the password?", telegramtest.InTopic(books))
	h.waitSent(forum.ID, 4)
	h.emu.SendGroup(forum, alice, "films: what was the password?", telegramtest.InTopic(films))
	h.waitSent(forum.ID, 5)
	reqs := h.waitRequests(4)
	h.stop()

	booksPrompt, filmsPrompt := requestText(reqs[2]), requestText(reqs[3])
	if strings.Contains(booksPrompt, "walrus") {
		t.Errorf("after /new in the books topic, its prompt still holds the old session:\n%s", booksPrompt)
	}
	if !strings.Contains(booksPrompt, "books: what was the password?") {
		t.Errorf("the books prompt lacks the question:\n%s", booksPrompt)
	}
	if !strings.Contains(filmsPrompt, "heron") {
		t.Errorf("/new in the books topic reset the films topic too:\n%s", filmsPrompt)
	}
	if n := len(h.llm.Requests()); n != 4 {
		t.Errorf("%d model calls, want 4 (the /new command costs none)", n)
	}
}
