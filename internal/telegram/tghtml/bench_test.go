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
