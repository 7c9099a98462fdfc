package tghtml

import (
	"os"
	"strings"
	"testing"
)

// BenchmarkFormatSplit formats and splits a 20 KB reply.
func BenchmarkFormatSplit(b *testing.B) {
	reply, err := os.ReadFile("testdata/format/llm_reply.md")
	if err != nil {
		b.Fatal(err)
	}
	var md strings.Builder
	for md.Len() < 20<<10 {
		md.Write(reply)
		md.WriteString("\n\n")
	}
	src := md.String()
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		for _, p := range Split(Format(src), MaxMessageLen) {
			_ = p
		}
	}
}

// BenchmarkFormatShort formats a chat-sized reply, the common case, where what Format
// costs besides the text itself (the parser) shows.
func BenchmarkFormatShort(b *testing.B) {
	for b.Loop() {
		_ = Format("Sure — **tomorrow at 10** works. I'll remind you an hour before.")
	}
}
