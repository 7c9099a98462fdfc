package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/lane"
	"github.com/mynah-ai/mynah/internal/llm"
	"github.com/mynah-ai/mynah/internal/memory/locomo"
	"github.com/mynah-ai/mynah/internal/prompt"
	"github.com/mynah-ai/mynah/internal/tokens"
)

type benchTokensFlags struct {
	LoCoMo string
	Group  string
	Warmup int
}

func benchTokensCommand() *cobra.Command {
	f := benchTokensFlags{Warmup: 20}
	cmd := &cobra.Command{
		Use:   "tokens [--locomo locomo10.json] [--group group.json]",
		Short: "Measure how close the calibrated token estimate comes to what a provider reports",
		Long: `Measure the token estimate that budgets prompts (tokens: estimate) against the prompt
tokens a provider reports, before and after it calibrates itself from them.

Each conversation is replayed message by message: the prompt answering each message is
built as serve builds it (the agent init writes, the structured format, history up to
the budget) and costed three ways: by the estimate alone, by the calibration as it
stands (learning from the reports of the prompts before), and as OpenAI reports it for
gpt-4o-mini — o200k_base tokens of every message, 3 per message and 3 for the reply, plus
the tool definitions. The relative errors of the first two against the third are
reported (p50, p95, max), the calibrated ones from prompt --warmup on.

--locomo takes LoCoMo's locomo10.json; --group a chat export as a JSON list of messages
({id, time, text, from: {id, first_name, username, is_bot}, reply_to}).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.LoCoMo == "" && f.Group == "" {
				return usageError{errors.New("give --locomo, --group or both")}
			}
			var sets []tokenSet
			if f.LoCoMo != "" {
				s, err := locomoChats(f.LoCoMo)
				if err != nil {
					return err
				}
				sets = append(sets, s)
			}
			if f.Group != "" {
				s, err := groupChat(f.Group)
				if err != nil {
					return err
				}
				sets = append(sets, s)
			}
			var rows []tokenRow
			for _, s := range sets {
				rows = append(rows, measureTokens(s, f.Warmup))
			}
			return writeTokenRows(cmd.OutOrStdout(), rows, f.Warmup)
		},
	}
	cmd.Flags().StringVar(&f.LoCoMo, "locomo", "", "path of locomo10.json")
	cmd.Flags().StringVar(&f.Group, "group", "", "path of a group chat as a JSON list of messages")
	cmd.Flags().IntVar(&f.Warmup, "warmup", f.Warmup, "prompts a calibration learns from before its errors count")
	return cmd
}

// tokenSet is a set of conversations, replayed as the chats of one agent.
type tokenSet struct {
	name  string
	chats [][]mynah.Message
	bot   mynah.User
}

// tokenRow is what measureTokens found for one set.
type tokenRow struct {
	name           string
	chats, prompts int
	meanTokens     int
	// Relative errors: of the estimate alone, over every prompt; of the calibration, over
	// the prompts after the first warmup.
	estimate, calibrated []float64
}

// locomoChats reads LoCoMo's conversations as chats between its two speakers.
func locomoChats(path string) (tokenSet, error) {
	convs, err := locomo.LoadFile(path)
	if err != nil {
		return tokenSet{}, err
	}
	set := tokenSet{name: "LoCoMo", bot: mynah.User{ID: 7000001, FirstName: "Mynah", Username: "mynah_bot", IsBot: true}}
	for i, c := range convs {
		chat := mynah.Chat{ID: mynah.ChatID(-1000 - i), Type: mynah.ChatGroup, Title: c.ID}
		var msgs []mynah.Message
		for _, t := range c.Turns {
			speaker := 1
			if t.Speaker == c.Speakers[1] {
				speaker = 2
			}
			msgs = append(msgs, mynah.Message{Chat: chat, ID: t.ID(), Text: t.Text, Time: t.Time,
				Sender: mynah.User{ID: mynah.UserID(speaker), FirstName: t.Speaker}})
		}
		set.chats = append(set.chats, msgs)
	}
	return set, nil
}

// groupChat reads a group chat export (the prompt package's group50.json fixture).
func groupChat(path string) (tokenSet, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return tokenSet{}, err
	}
	var raw []struct {
		ID      int64  `json:"id"`
		Time    int64  `json:"time"`
		Text    string `json:"text"`
		ReplyTo int64  `json:"reply_to"`
		From    struct {
			ID        int64  `json:"id"`
			FirstName string `json:"first_name"`
			Username  string `json:"username"`
			IsBot     bool   `json:"is_bot"`
		} `json:"from"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return tokenSet{}, fmt.Errorf("%s: %w", path, err)
	}
	set := tokenSet{name: "group chat", bot: mynah.User{ID: 7000001, FirstName: "Mynah", Username: "mynah_bot", IsBot: true}}
	chat := mynah.Chat{ID: -1001234567890, Type: mynah.ChatSupergroup, Title: "Group"}
	byID := map[int64]mynah.Message{}
	var msgs []mynah.Message
	for _, r := range raw {
		u := mynah.User{ID: mynah.UserID(r.From.ID), FirstName: r.From.FirstName, Username: r.From.Username, IsBot: r.From.IsBot}
		if r.From.IsBot {
			set.bot = u
		}
		m := mynah.Message{Chat: chat, ID: mynah.MessageID(r.ID), Sender: u, Text: r.Text, Time: time.Unix(r.Time, 0).UTC(), Outgoing: r.From.IsBot}
		if p, ok := byID[r.ReplyTo]; ok {
			m.ReplyTo = &mynah.ReplyRef{ID: p.ID, Sender: p.Sender, Text: p.Text}
		}
		byID[r.ID] = m
		msgs = append(msgs, m)
	}
	set.chats = [][]mynah.Message{msgs}
	return set, nil
}

// measureTokens replays the chats of s as one agent serving them all: their messages
// interleaved, one at a time from each chat in turn, and one calibration learning from
// every prompt, as serve keeps one per agent and model. For each message not the
// agent's, the prompt answering it is built, predicted and then reported (see
// benchTokensCommand).
func measureTokens(s tokenSet, warmup int) tokenRow {
	row := tokenRow{name: s.name, chats: len(s.chats)}
	exact := tokens.Cached(tokens.For("openai", "gpt-4o-mini"), 1<<16)
	tools := lane.PlanTools(nil)
	toolTokens := 0
	for _, t := range tools {
		raw, _ := json.Marshal(t)
		toolTokens += exact.Count(string(raw))
	}
	system := prompt.System(prompt.SystemParts{
		Roles:        []string{"You are warm, direct and concise. You talk like a person in a chat, not like a document."},
		Instructions: "You are Mynah, a helpful assistant chatting on Telegram.\nAnswer in the language you are addressed in. Keep answers short unless asked for detail.",
	}, nil)
	cal, plain := tokens.NewCalibration(), tokens.NewCalibration()
	total := 0
	next := make([]int, len(s.chats)) // the next message of each chat
	for left := true; left; {
		left = false
		for c, chat := range s.chats {
			i := next[c]
			if i >= len(chat) {
				continue
			}
			left = true
			next[c]++
			m := chat[i]
			if m.Sender.ID == s.bot.ID {
				continue
			}
			req, _ := prompt.Build(prompt.Input{System: system, Chat: m.Chat, Bot: s.bot, History: chat[max(0, i-prompt.DefaultMaxMessages+1) : i+1],
				Target: m.ID, Budget: 32000 - 1024, Count: cal.Count, Now: m.Time})
			req.Tools = tools
			reported := openAIPromptTokens(req, exact.Count) + toolTokens
			p, ok := measurePrompt(cal, req)
			if !ok {
				continue
			}
			rel := func(n int) float64 { return math.Abs(float64(n-reported)) / float64(reported) }
			row.estimate = append(row.estimate, rel(plain.Predict(p)))
			if cal.Observations() >= warmup {
				row.calibrated = append(row.calibrated, rel(cal.Predict(p)))
			}
			cal.Observe(p, reported)
			row.prompts++
			total += reported
		}
	}
	if row.prompts > 0 {
		row.meanTokens = total / row.prompts
	}
	return row
}

// openAIPromptTokens is how OpenAI counts a chat prompt's tokens without tools: every
// message's content in count's tokens, 3 framing each message, 3 priming the reply.
func openAIPromptTokens(req llm.Request, count func(string) int) int {
	n := 3
	if sys := llm.SystemText(req); sys != "" {
		n += 3 + count(sys)
	}
	for _, t := range req.Turns {
		n += 3
		var text []string
		for _, p := range t.Parts {
			if p.Text != "" {
				text = append(text, p.Text)
			}
		}
		n += count(strings.Join(text, "\n"))
	}
	return n
}

func writeTokenRows(w io.Writer, rows []tokenRow, warmup int) error {
	pct := func(v []float64, p float64) string {
		if len(v) == 0 {
			return "-"
		}
		s := slices.Sorted(slices.Values(v))
		return fmt.Sprintf("%.2f%%", 100*s[int(float64(len(s)-1)*p)])
	}
	fmt.Fprintf(w, "Token estimate against the prompt tokens OpenAI reports (gpt-4o-mini, o200k_base); calibrated errors after %d prompts\n\n", warmup)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "set\tchats\tprompts\tmean tokens\testimate p50\tp95\tmax\tcalibrated p50\tp95\tmax\t")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t\n", r.name, r.chats, r.prompts, r.meanTokens,
			pct(r.estimate, 0.5), pct(r.estimate, 0.95), pct(r.estimate, 1),
			pct(r.calibrated, 0.5), pct(r.calibrated, 0.95), pct(r.calibrated, 1))
	}
	return tw.Flush()
}
