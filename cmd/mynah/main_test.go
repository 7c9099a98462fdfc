package main

import (
	"os"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets the test binary act as the mynah binary: testscript scripts and the
// end-to-end tests run it as "mynah", which executes main() exactly as shipped.
func TestMain(m *testing.M) {
	shortRaceExit()
	testscript.Main(m, map[string]func(){"mynah": main})
}

// shortRaceExit makes the mynah processes the tests start (which inherit the test's
// environment) leave promptly when built with -race: the race detector sleeps a second at
// exit by default (GORACE atexit_sleep_ms=1000), for other threads to finish reporting,
// and the end-to-end tests start the binary a few hundred times. 10 ms is what testscript
// suggests (it passes GORACE on to scripts); a GORACE that sets it already is kept.
// Measured: go test -race ./cmd/mynah 521 -> 343 s.
func shortRaceExit() {
	if v := os.Getenv("GORACE"); !strings.Contains(v, "atexit_sleep_ms") {
		os.Setenv("GORACE", strings.TrimSpace(v+" atexit_sleep_ms=10"))
	}
}

func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			// Scripts must not see the developer's real keys or endpoints.
			for _, v := range []string{"TELEGRAM_BOT_TOKEN", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY",
				"OPENAI_BASE_URL", "ANTHROPIC_BASE_URL", "GOOGLE_GEMINI_BASE_URL", "MYNAH_TELEGRAM_API_URL"} {
				env.Setenv(v, "")
			}
			return nil
		},
	})
}
