package main

import (
	"bufio"
	"fmt"
	"image/color"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mynah-ai/mynah/internal/llm/llmtest"
	"github.com/mynah-ai/mynah/internal/telegram/telegramtest"
	"github.com/mynah-ai/mynah/internal/testmedia"
)

// TestPlay talks to the agent through `mynah play`, as a user trying a persona would:
// lines on stdin, replies on stdout, the configured (here: fake) provider behind it.
func TestPlay(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	h.llm.SetDefault(func(r llmtest.Recorded) llmtest.Reply {
		return llmtest.Reply{Text: "you said: " + lastPlainLine(r.LastUserText())}
	})
	run := func(stdin string, args ...string) string {
		t.Helper()
		cmd := exec.Command(os.Args[0], append([]string{"play", "--config", h.dir}, args...)...)
		cmd.Args[0] = "mynah"
		cmd.Env = playEnv(h)
		cmd.Stdin = strings.NewReader(stdin)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("mynah play: %v\n%s", err, out)
		}
		return string(out)
	}

	// Interactive: type a line, read the answer, type the next.
	cmd := exec.Command(os.Args[0], "play", "--config", h.dir)
	cmd.Args[0] = "mynah"
	cmd.Env = playEnv(h)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(stdout)
	expect := func(want string) {
		t.Helper()
		for lines.Scan() {
			if strings.Contains(lines.Text(), want) {
				return
			}
		}
		t.Fatalf("play output ended without %q", want)
	}
	expect("private chat")
	io.WriteString(stdin, "hello mynah\n")
	expect("Mynah: you said: hello mynah")
	io.WriteString(stdin, "what is a mynah?\n")
	expect("Mynah: you said: what is a mynah?")
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("play exited with %v", err)
	}
	if second := requestText(h.llm.Requests()[1]); !strings.Contains(second, "hello mynah") || !strings.Contains(second, "you said: hello mynah") {
		t.Errorf("the second request lacks the first exchange:\n%s", second)
	}

	// Each play starts a new conversation.
	run("fresh start\n")
	if third := requestText(h.llm.Requests()[2]); strings.Contains(third, "hello mynah") {
		t.Errorf("a new play still saw the previous one:\n%s", third)
	}

	out := run("just chatting\n@mynah_bot are you there?\n", "--group")
	if !strings.Contains(out, "Mynah: you said: @mynah_bot are you there?") || strings.Contains(out, "you said: just chatting") {
		t.Errorf("group play output:\n%s", out)
	}
	if n := len(h.llm.Requests()); n != 4 {
		t.Errorf("%d model calls, want 4 (group chatter is not answered)", n)
	}
}

// playEnv is the harness environment without what play must not need: a bot token, a Bot
// API URL, or an open access policy (the player is the owner and is always answered).
func playEnv(h *harness) []string {
	var env []string
	for _, kv := range h.env {
		if !strings.HasPrefix(kv, "TELEGRAM_BOT_TOKEN=") && !strings.HasPrefix(kv, "MYNAH_TELEGRAM_API_URL=") && !strings.HasPrefix(kv, "MYNAH_ACCESS_") {
			env = append(env, kv)
		}
	}
	return env
}

// TestPlayShowsWhatTheBotDoes: play prints stickers, reactions and edits (a group answer
// is streamed into an edited message), not only new text messages.
func TestPlayShowsWhatTheBotDoes(t *testing.T) {
	for _, c := range []struct {
		ev   telegramtest.Event
		want string
	}{
		{telegramtest.Event{Kind: telegramtest.EventSent, Message: telegramtest.SentMessage{Text: "hi"}}, "Mynah: hi"},
		{telegramtest.Event{Kind: telegramtest.EventSent, Message: telegramtest.SentMessage{Message: telegramtest.Message{Sticker: &telegramtest.Sticker{Emoji: "💻"}}}}, "Mynah: [sticker 💻]"},
		{telegramtest.Event{Kind: telegramtest.EventEdited, Message: telegramtest.SentMessage{MessageID: 7, Text: "the whole answer"}}, "Mynah (edited #7): the whole answer"},
		{telegramtest.Event{Kind: telegramtest.EventReaction, Reaction: telegramtest.Reaction{MessageID: 3, Reaction: []telegramtest.ReactionType{{Type: "emoji", Emoji: "👍"}}}}, "Mynah reacted 👍 to message #3"},
		{telegramtest.Event{Kind: telegramtest.EventAction}, ""},
	} {
		if got := replyLine(c.ev, "Mynah"); got != c.want {
			t.Errorf("replyLine(%v) = %q, want %q", c.ev.Kind, got, c.want)
		}
	}
}

// TestPlayMedia: in play a person sends a photo, a voice note, a sticker and a file from
// disk, and the agent answers about each: the photo as an image, the voice note's words,
// the sticker's curated description and the file's text.
func TestPlayMedia(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	newSenses(h, func([]byte) string { return "a small green square" })
	h.llm.SetTranscript(testmedia.Voice(), testmedia.VoiceWords)
	write(t, filepath.Join(h.dir, "media", "ribbit.json"),
		`{"kind": "sticker", "sticker_set_name": "MrRibbit", "sticker_name": "💻", "description": "a grumpy cartoon frog at a laptop"}`)
	files := t.TempDir()
	photo := filepath.Join(files, "square.png")
	voice := filepath.Join(files, "note.ogg")
	notes := filepath.Join(files, "notes.md")
	os.WriteFile(photo, testmedia.PNG(24, 24, color.RGBA{G: 180, A: 255}), 0o644)
	os.WriteFile(voice, testmedia.Voice(), 0o644)
	os.WriteFile(notes, []byte("# Packing\n- passport\n- charger\n"), 0o644)

	cmd := exec.Command(os.Args[0], "play", "--config", h.dir)
	cmd.Args[0] = "mynah"
	cmd.Env = playEnv(h)
	cmd.Stdin = strings.NewReader(fmt.Sprintf("/photo %s what is this?\n/voice %s\n/sticker MrRibbit 💻\n/file %s\n/photo /no/such/file.png\n", photo, voice, notes))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("mynah play: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "play: open /no/such/file.png") {
		t.Errorf("a missing file should be reported, not sent:\n%s", out)
	}
	var images int
	all := ""
	for _, r := range chatRequests(h) {
		images += len(r.Images())
		all += requestText(r)
	}
	if images == 0 {
		t.Error("the photo did not reach the model as an image")
	}
	for _, want := range []string{"what is this?", `[voice 3s: "` + testmedia.VoiceWords + `"]`, "[sticker MrRibbit 💻: a grumpy cartoon frog at a laptop]", "- passport"} {
		if !strings.Contains(all, want) {
			t.Errorf("the agent never saw %q:\n%s", want, all)
		}
	}
}
