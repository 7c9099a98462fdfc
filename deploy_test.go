package mynah_test

import (
	"os"
	"strings"
	"testing"
)

// TestDockerfile lints the Dockerfile where no image builder runs (CI has no Docker
// engine): pinned base images, a static build, a non-root user, the data on a volume,
// a health check in exec form that the image itself can run.
func TestDockerfile(t *testing.T) {
	data, err := os.ReadFile("Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	var lines []string // instructions, continuation lines joined
	cur := ""
	for _, l := range strings.Split(string(data), "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "#") || l == "" && cur == "" {
			continue
		}
		cur += " " + strings.TrimSuffix(l, "\\")
		if !strings.HasSuffix(l, "\\") {
			lines = append(lines, strings.TrimSpace(cur))
			cur = ""
		}
	}
	var froms []string
	final := map[string]string{} // instruction → arguments, of the last stage
	for _, l := range lines {
		op, args, _ := strings.Cut(l, " ")
		op = strings.ToUpper(op)
		if op == "FROM" {
			froms = append(froms, args)
			final = map[string]string{}
		}
		final[op] += args + "\n"
	}
	if len(froms) < 2 {
		t.Errorf("want a build stage and a runtime stage, got FROM %q", froms)
	}
	for _, f := range froms {
		image := strings.Fields(f)[0]
		if !strings.Contains(image, ":") || strings.HasSuffix(image, ":latest") {
			t.Errorf("FROM %s: pin the image's tag", image)
		}
	}
	if !strings.Contains(string(data), "CGO_ENABLED=0 go build") {
		t.Error("the binary is not built static (CGO_ENABLED=0)")
	}
	if u := strings.TrimSpace(final["USER"]); u == "" || strings.HasPrefix(u, "root") || strings.HasPrefix(u, "0") {
		t.Errorf("the runtime stage runs as %q, want a non-root user", u)
	}
	if !strings.Contains(final["VOLUME"], "/data") || !strings.Contains(final["ENV"], "MYNAH_DATA_DIR=/data") {
		t.Error("the data dir is not on a volume at /data")
	}
	hc := final["HEALTHCHECK"]
	if !strings.Contains(hc, `CMD ["/usr/local/bin/mynah", "health"`) {
		t.Errorf("HEALTHCHECK %q: want the exec form running mynah health", hc)
	}
	if !strings.Contains(final["ENV"], "MYNAH_METRICS_LISTEN=0.0.0.0:9464") || !strings.Contains(hc, "127.0.0.1:9464/readyz") {
		t.Error("the health check does not ask the port the metrics listener is told to use")
	}
	if !strings.HasPrefix(strings.TrimSpace(final["ENTRYPOINT"]), "[") {
		t.Error("ENTRYPOINT is not in exec form: signals would not reach mynah")
	}
}
