package crew_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/llm/cli"
	"github.com/mynah-ai/mynah/internal/prompt"
	"github.com/mynah-ai/mynah/internal/sqlite"
)

// BenchmarkCrewTokens measures the prompt tokens of each member turn of a 200-message crew
// conversation (50 user messages, each answered by three members in turn, ~60 words a
// message) under the history policies full and delta, and what a command-line member's
// live session is sent (the delta since its last turn) against a new session (everything).
//
//	go test -run '^$' -bench CrewTokens -benchtime 1x ./internal/crew
func BenchmarkCrewTokens(b *testing.B) {
	names := []string{"Ann", "Ben", "Cat"}
	c := team(3, names...)
	bots := map[string]mynah.User{}
	for i, n := range names {
		bots[n] = mynah.User{ID: mynah.UserID(9000 + i), FirstName: n, Username: strings.ToLower(n) + "_bot", IsBot: true}
	}
	words := strings.Repeat("the crew weighs the plan and the risks of each step before it ships ", 5)
	for range b.N {
		db, err := sqlite.Open(b.Context(), filepath.Join(b.TempDir(), "tokens.db"))
		if err != nil {
			b.Fatal(err)
		}
		asm := map[string]*prompt.Assembler{}
		for _, n := range names {
			asm[n] = prompt.NewAssembler(prompt.Agent{Name: n, Bot: bots[n], Budget: 1 << 20, MaxMessages: 1000,
				System: prompt.SystemParts{Instructions: "You are " + n + ". " + words}}, db, prompt.Sources{}, nil)
		}
		var full, delta, cliFull, cliDelta, turns int
		var lastFull, lastDelta int
		seen := map[string]mynah.MessageID{}
		start := time.Date(2025, 5, 1, 10, 0, 0, 0, time.UTC)
		for id := mynah.MessageID(1); id <= 200; id++ {
			sender, text := alice, fmt.Sprintf("user message %d: %s", id, words)
			var target mynah.MessageID
			if k := int(id-1) % 4; k > 0 {
				member := names[k-1]
				target = id - mynah.MessageID(k)
				// The member's turn, before its message is in: what its prompt holds.
				for policy, sum := range map[string]*int{prompt.PolicyFull: &full, prompt.PolicyDelta: &delta} {
					req, comp, err := asm[member].Assemble(b.Context(), prompt.Turn{Chat: group.ID, Target: target,
						Layer: c.Layer(member, bots), Policy: &prompt.Policy{Kind: policy}})
					if err != nil {
						b.Fatal(err)
					}
					*sum += comp.Tokens
					if id == 200 && policy == prompt.PolicyFull {
						lastFull = comp.Tokens
					} else if id == 200 {
						lastDelta = comp.Tokens
					}
					if policy == prompt.PolicyFull {
						cliFull += prompt.Estimate(cli.Full(req))
						cliDelta += prompt.Estimate(cli.Delta(req, seen[member], false))
						seen[member] = id - 1
					}
				}
				turns++
				sender, text = bots[member], fmt.Sprintf("%s on message %d: %s", member, target, words)
			}
			msg := mynah.Message{Chat: group, ID: id, Sender: sender, Time: start.Add(time.Duration(id) * time.Second), Text: text}
			if err := db.ShareMessage(b.Context(), names, msg); err != nil {
				b.Fatal(err)
			}
		}
		db.Close()
		b.ReportMetric(float64(full)/float64(turns), "full-tokens/turn")
		b.ReportMetric(float64(delta)/float64(turns), "delta-tokens/turn")
		b.ReportMetric(float64(lastFull), "full-tokens-at-200")
		b.ReportMetric(float64(lastDelta), "delta-tokens-at-200")
		b.ReportMetric(float64(cliFull)/float64(turns), "cli-new-session-tokens/turn")
		b.ReportMetric(float64(cliDelta)/float64(turns), "cli-live-session-tokens/turn")
	}
}
