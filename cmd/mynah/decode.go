package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.yaml.in/yaml/v3"
)

// fileBytes carries a file's content or the error reading it.
type fileBytes struct {
	data []byte
	err  error
}

func mustRead(path string) fileBytes {
	data, err := os.ReadFile(path)
	return fileBytes{data, err}
}

// parseYAML parses the YAML document of path for decoding into a value of out's type.
// Unknown keys are errors, found on the file as written (exact line numbers); then ${NAME}
// in scalar values is expanded on the same nodes, so the lines of values stay exact too.
// An empty document is a nil node.
func parseYAML(path string, fb fileBytes, getenv func(string) string, out any) (*yaml.Node, error) {
	if fb.err != nil {
		if errors.Is(fb.err, os.ErrNotExist) {
			if filepath.Dir(path) == "." {
				// No --config given and none here: the flag is what is missing, more often
				// than a configuration.
				return nil, &configError{File: path, Msg: "not in this directory: pass the configuration directory with --config DIR (mynah init DIR creates one)"}
			}
			return nil, &configError{File: path, Msg: "file not found (create one with: mynah init DIR)"}
		}
		return nil, &configError{File: path, Msg: fb.err.Error()}
	}
	var root yaml.Node
	if err := yaml.Unmarshal(fb.data, &root); err != nil {
		return nil, &configError{File: path, Msg: yamlMessage(err)}
	}
	if len(root.Content) == 0 {
		return nil, nil
	}
	strict := yaml.NewDecoder(bytes.NewReader(fb.data))
	strict.KnownFields(true)
	if err := strict.Decode(reflect.New(reflect.TypeOf(out).Elem()).Interface()); err != nil {
		if msgs := unknownKeys(err); len(msgs) > 0 {
			return nil, &configError{File: path, Msg: strings.Join(msgs, "; ")}
		}
	}
	expandNode(&root, getenv)
	return &root, nil
}

// decodeNode decodes root, a document of path, into out over the values out already has:
// a key the document leaves out keeps its value. A bad value is reported with its key.
func decodeNode(path string, root *yaml.Node, out any) error {
	err := root.Decode(out)
	if err == nil {
		return nil
	}
	if te, ok := errors.AsType[*yaml.TypeError](err); ok {
		for _, e := range te.Errors {
			if m := badValue().FindStringSubmatch(e); m != nil {
				line, _ := strconv.Atoi(m[1])
				col, _ := strconv.Atoi(m[2])
				if key, ok := keyPath(root, line, col); ok {
					return &configError{path, key, m[3]}
				}
			}
		}
	}
	return &configError{File: path, Msg: yamlMessage(err)}
}

// valueError reports the bad value of node n. It is a *yaml.TypeError, so that decoding
// goes on (the strict pass finds the unknown keys after it), and decodeNode names the key
// of the value from its line and column.
func valueError(n *yaml.Node, msg string) error {
	return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d, column %d: %s", n.Line, n.Column, msg)}}
}

var badValue = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^line (\d+), column (\d+): (.*)$`) })

// keyPath is the dotted key of the value at line:col in n, e.g. "access.rate_limit.per".
func keyPath(n *yaml.Node, line, col int) (string, bool) {
	step := func(key string, v *yaml.Node) (string, bool) {
		if v.Line == line && v.Column == col {
			return key, true
		}
		rest, ok := keyPath(v, line, col)
		if ok && !strings.HasPrefix(rest, "[") {
			rest = "." + rest
		}
		return key + rest, ok
	}
	switch n.Kind {
	case yaml.DocumentNode:
		return keyPath(n.Content[0], line, col)
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if key, ok := step(n.Content[i].Value, n.Content[i+1]); ok {
				return key, true
			}
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			if key, ok := step(fmt.Sprintf("[%d]", i), c); ok {
				return key, true
			}
		}
	}
	return "", false
}

// lookup returns the value of the key path keys in the mapping n (or n's document), or nil.
func lookup(n *yaml.Node, keys ...string) *yaml.Node {
	if n != nil && n.Kind == yaml.DocumentNode {
		n = n.Content[0]
	}
	for _, k := range keys {
		if n == nil || n.Kind != yaml.MappingNode {
			return nil
		}
		var v *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == k {
				v = n.Content[i+1]
			}
		}
		n = v
	}
	return n
}

// dropUnset removes the keys of n's mappings whose value is null or empty (`key:`,
// `key: ""`, `key: ${UNSET}`): decoded over inherited settings, such a key leaves the
// inherited value, as a key left out does.
func dropUnset(n *yaml.Node) {
	if n == nil {
		return
	}
	if n.Kind != yaml.MappingNode {
		for _, c := range n.Content {
			dropUnset(c)
		}
		return
	}
	kept := n.Content[:0]
	for i := 0; i+1 < len(n.Content); i += 2 {
		v := n.Content[i+1]
		if v.Kind == yaml.ScalarNode && (v.ShortTag() == "!!null" || v.Value == "") {
			continue
		}
		dropUnset(v)
		kept = append(kept, n.Content[i], v)
	}
	n.Content = kept
}

// unknownKeys extracts the unknown-key complaints from a strict decoding error.
func unknownKeys(err error) []string {
	te, ok := errors.AsType[*yaml.TypeError](err)
	if !ok {
		return nil
	}
	var msgs []string
	for _, e := range te.Errors {
		if unknownField().MatchString(e) {
			msgs = append(msgs, unknownField().ReplaceAllString(e, `line $1: unknown key "$2"`))
		}
	}
	return msgs
}

var unknownField = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`line (\d+): field (\S+) not found in type \S+`) })
var cannotUnmarshal = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`line (\d+): cannot unmarshal !!(\w+) ` + "`" + `([^` + "`" + `]*)` + "`" + ` into (\S+)`)
})

// yamlMessage rewrites yaml.v3's errors in words a user understands.
func yamlMessage(err error) string {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	msg = strings.TrimPrefix(msg, "unmarshal errors:\n  ")
	msg = unknownField().ReplaceAllString(msg, `line $1: unknown key "$2"`)
	msg = cannotUnmarshal().ReplaceAllString(msg, `line $1: "$3" is not a valid $4`)
	return strings.ReplaceAll(msg, "\n  ", "; ")
}

var envRef = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`) })

// expandNode replaces ${NAME} in every scalar value (not keys) with the variable's value.
func expandNode(n *yaml.Node, getenv func(string) string) {
	switch n.Kind {
	case yaml.ScalarNode:
		if strings.Contains(n.Value, "${") {
			n.Value = envRef().ReplaceAllStringFunc(n.Value, func(m string) string { return getenv(m[2 : len(m)-1]) })
			if n.Tag == "!!null" || n.Value == "" {
				n.Tag = "!!str"
			}
		}
	case yaml.MappingNode:
		for i := 1; i < len(n.Content); i += 2 {
			expandNode(n.Content[i], getenv)
		}
	default:
		for _, c := range n.Content {
			expandNode(c, getenv)
		}
	}
}

// duration is a span of time in the configuration ("90s", "30m", "4h"). It is parsed
// where it is decoded, so a value that is not a duration is reported with its file and
// key, and what is loaded is a time.Duration.
type duration time.Duration

// UnmarshalYAML parses the value; an empty one leaves d unset (as it was).
func (d *duration) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode && n.Value == "" {
		return nil
	}
	v, err := time.ParseDuration(n.Value)
	if n.Kind != yaml.ScalarNode || err != nil {
		return valueError(n, fmt.Sprintf("%q is not a duration, like 90s, 30m or 4h", n.Value))
	}
	*d = duration(v)
	return nil
}

// String writes d as a configuration would, without zero minutes or seconds: 72h, 1m,
// 1m30s.
func (d duration) String() string {
	s := time.Duration(d).String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
