// Package json stands in for github.com/grbit/go-json, which telego encodes Bot API
// requests and decodes responses with unless it is built with -tags stdjson: mynah's
// go.mod replaces that module with this one, so that every build, tagged or not, encodes
// with encoding/json, as telego's own stdjson tag does.
//
// Why: go-json sizes two type caches by the binary's whole type section at start (about
// 5.7 MB here, scanned by every collection) and keeps the code it compiles for each type
// it meets; serving 1,000 messages, a build with it held 32.5 MB of anonymous memory
// against 16.7 MB without (`mynah bench load`), for ~0.3 ms less CPU a message. telego
// uses exactly Marshal and Unmarshal of it (internal/json/lib.gojson.go); nothing else
// in mynah's module graph imports it.
package json

import "encoding/json"

// Marshal is encoding/json's Marshal.
func Marshal(v any) ([]byte, error) { return json.Marshal(v) }

// Unmarshal is encoding/json's Unmarshal.
func Unmarshal(data []byte, v any) error { return json.Unmarshal(data, v) }
