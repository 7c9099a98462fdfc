package main

import (
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets the test binary act as the mynah binary: testscript scripts and the
// end-to-end tests run it as "mynah", which executes main() exactly as shipped.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){"mynah": main})
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
