package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// BenchmarkServeLoad runs the real mynah binary (built with go build, as shipped) against
// the Bot API emulator and an instant fake provider, as mynah bench load does: 100
// private chats × 10 messages, each chat sending its next message when the reply to the
// previous one arrived. It reports what the serving process pays, from /proc: CPU time
// per message, RssAnon and VmRSS idle and after the load, VmHWM, the time from start to
// the first getUpdates, throughput and latency. MYNAH_LOAD_CPUPROFILE names a file for
// serve's CPU profile.
//
//	go test -run '^$' -bench ServeLoad -benchtime 1x ./cmd/mynah
func BenchmarkServeLoad(b *testing.B) {
	if runtime.GOOS != "linux" {
		b.Skip("reads /proc")
	}
	bin := filepath.Join(b.TempDir(), "mynah")
	gobin, err := exec.LookPath("go")
	if err != nil {
		b.Skip("needs the go command to build the binary")
	}
	build := exec.Command(gobin, "build", "-o", bin, ".") // as shipped (Dockerfile)
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	b.ResetTimer()
	for b.Loop() {
		r, err := benchLoad(b.Context(), loadRun{Chats: 100, Messages: 10, Bin: bin, Settle: time.Second,
			CPUProfile: os.Getenv("MYNAH_LOAD_CPUPROFILE")})
		if err != nil {
			b.Fatal(err)
		}
		ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
		b.ReportMetric(r.throughput(), "msgs/s")
		b.ReportMetric(ms(r.P50), "p50-ms")
		b.ReportMetric(ms(r.P99), "p99-ms")
		b.ReportMetric(ms(r.cpuPerMessage()), "cpu-ms/msg")
		b.ReportMetric(ms(r.FirstStart), "first-start-ms")
		b.ReportMetric(ms(r.Start), "restart-ms")
		b.ReportMetric(float64(r.AnonIdle)/1024, "anon-idle-MB")
		b.ReportMetric(float64(r.AnonAfter)/1024, "anon-after-MB")
		b.ReportMetric(float64(r.RSSIdle)/1024, "rss-idle-MB")
		b.ReportMetric(float64(r.RSSAfter)/1024, "rss-after-MB")
		b.ReportMetric(float64(r.HWM)/1024, "hwm-MB")
	}
}
