package telegramtest

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// botAPIJSON is the Bot API 10.1 specification from the
// telegram-bot-api-spec project (MIT, see botapi.LICENSE). It is parsed
// lazily, once per Server.
//
//go:embed botapi.json
var botAPIJSON []byte

// apiSpec is the parsed specification.
type apiSpec struct {
	Version string
	methods map[string]*specMethod // keyed by lower-case name
	types   map[string]*specType
}

type specField struct {
	Name        string   `json:"name"`
	Types       []string `json:"types"`
	Required    bool     `json:"required"`
	Description string   `json:"description"`
}

type specMethod struct {
	Name    string      `json:"name"`
	Returns []string    `json:"returns"`
	Fields  []specField `json:"fields"`
	byName  map[string]*specField
}

type specType struct {
	Name     string      `json:"name"`
	Fields   []specField `json:"fields"`
	Subtypes []string    `json:"subtypes"`
	byName   map[string]*specField
	// discField and discValue identify a concrete subtype of an abstract
	// type, e.g. type == "emoji" for ReactionTypeEmoji.
	discField, discValue string
}

// discriminatorRE extracts the tag value from descriptions such as
// `Type of the reaction, always "emoji"` or `Scope type, must be chat`.
var discriminatorRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?:always|must be) "?([a-z_]+)"?`) })

func parseSpec(b []byte) (*apiSpec, error) {
	var raw struct {
		Version string                 `json:"version"`
		Methods map[string]*specMethod `json:"methods"`
		Types   map[string]*specType   `json:"types"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("parse bot api spec: %w", err)
	}
	s := &apiSpec{Version: raw.Version, methods: make(map[string]*specMethod, len(raw.Methods)), types: raw.Types}
	for _, m := range raw.Methods {
		m.byName = make(map[string]*specField, len(m.Fields))
		for i := range m.Fields {
			m.byName[m.Fields[i].Name] = &m.Fields[i]
		}
		s.methods[strings.ToLower(m.Name)] = m
	}
	for _, t := range raw.Types {
		t.byName = make(map[string]*specField, len(t.Fields))
		for i := range t.Fields {
			f := &t.Fields[i]
			t.byName[f.Name] = f
			if f.Name == "type" || f.Name == "status" || f.Name == "source" {
				if m := discriminatorRE().FindStringSubmatch(f.Description); m != nil {
					t.discField, t.discValue = f.Name, m[1]
				}
			}
		}
	}
	return s, nil
}

// method returns the spec of a method, looked up case-insensitively.
func (s *apiSpec) method(name string) *specMethod { return s.methods[strings.ToLower(name)] }

// report collects problems found by a check: errs violate the spec, warns
// are unknown fields, which the official server itself emits.
type report struct {
	errs, warns []string
	// mismatch is set when the value has the wrong JSON kind altogether.
	mismatch bool
}

func (r *report) add(o report) {
	r.errs = append(r.errs, o.errs...)
	r.warns = append(r.warns, o.warns...)
}

// checker validates JSON values against spec types. Lenient mode accepts
// what the server accepts in requests: strings for numbers and booleans,
// JSON-serialized objects and arrays, uploaded files.
type checker struct {
	spec    *apiSpec
	lenient bool
}

// upload marks a multipart file part in a value being checked.
type uploadMarker struct{}

func kindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case json.Number:
		return "number"
	case bool:
		return "boolean"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	case uploadMarker:
		return "file"
	}
	return fmt.Sprintf("%T", v)
}

func mismatch(path, want string, v any) report {
	return report{errs: []string{fmt.Sprintf("%s: expected %s, got %s", path, want, kindOf(v))}, mismatch: true}
}

// matchAny checks v against a union of types and reports the best match.
func (c *checker) matchAny(path string, v any, types []string) report {
	var best report
	allMismatch := true
	for i, t := range types {
		r := c.match(path, v, t)
		if len(r.errs) == 0 {
			return r
		}
		allMismatch = allMismatch && r.mismatch
		if i == 0 || len(r.errs) < len(best.errs) || best.mismatch && !r.mismatch {
			best = r
		}
	}
	if allMismatch && len(types) > 1 {
		return mismatch(path, strings.Join(types, " or "), v)
	}
	return best
}

// match checks v against a single type expression.
func (c *checker) match(path string, v any, typ string) report {
	if s, ok := v.(string); ok && c.lenient {
		if typ != "String" && typ != "InputFile" && (strings.HasPrefix(typ, "Array of ") || c.spec.types[typ] != nil) {
			var decoded any
			d := json.NewDecoder(strings.NewReader(s))
			d.UseNumber()
			if err := d.Decode(&decoded); err != nil {
				return report{errs: []string{fmt.Sprintf("%s: can't parse %s JSON: %v", path, typ, err)}, mismatch: true}
			}
			v = decoded
		}
	}
	switch typ {
	case "Integer":
		return c.scalar(path, v, typ, func(s string) bool { return isInteger(s) })
	case "Float":
		return c.scalar(path, v, typ, func(s string) bool { _, err := json.Number(s).Float64(); return err == nil })
	case "Boolean":
		if _, ok := v.(bool); ok {
			return report{}
		}
		if s, ok := v.(string); ok && c.lenient {
			switch strings.ToLower(s) {
			case "true", "false", "1", "0", "yes", "no":
				return report{}
			}
		}
		if n, ok := v.(json.Number); ok && c.lenient && (n == "0" || n == "1") {
			return report{}
		}
		return mismatch(path, typ, v)
	case "String":
		switch v.(type) {
		case string:
			return report{}
		case json.Number, bool:
			if c.lenient {
				return report{}
			}
		}
		return mismatch(path, typ, v)
	case "InputFile":
		switch v.(type) {
		case uploadMarker:
			return report{}
		case string:
			if c.lenient {
				return report{}
			}
		}
		return mismatch(path, typ, v)
	}
	if elem, ok := strings.CutPrefix(typ, "Array of "); ok {
		arr, ok := v.([]any)
		if !ok {
			return mismatch(path, typ, v)
		}
		var r report
		for i, e := range arr {
			r.add(c.matchAny(fmt.Sprintf("%s[%d]", path, i), e, []string{elem}))
		}
		return r
	}
	if c.spec.types[typ] == nil {
		return report{errs: []string{fmt.Sprintf("%s: unknown type %s in spec", path, typ)}}
	}
	return c.object(path, v, typ)
}

func (c *checker) scalar(path string, v any, typ string, ok func(string) bool) report {
	switch x := v.(type) {
	case json.Number:
		if ok(string(x)) {
			return report{}
		}
	case string:
		if c.lenient && ok(x) {
			return report{}
		}
	}
	return mismatch(path, typ, v)
}

func isInteger(s string) bool {
	s = strings.TrimPrefix(s, "-")
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// object checks v against the named object type, dispatching abstract types
// to their subtypes.
func (c *checker) object(path string, v any, name string) report {
	t := c.spec.types[name]
	if len(t.Subtypes) > 0 {
		return c.abstract(path, v, t)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return mismatch(path, name, v)
	}
	var r report
	for _, f := range t.Fields {
		fv, present := m[f.Name]
		fp := join(path, f.Name)
		if !present {
			if f.Required {
				r.errs = append(r.errs, fmt.Sprintf("%s: required field missing (%s)", fp, name))
			}
			continue
		}
		if f.Name == t.discField && fv != t.discValue {
			r.errs = append(r.errs, fmt.Sprintf("%s: must be %q (%s)", fp, t.discValue, name))
			continue
		}
		r.add(c.matchAny(fp, fv, f.Types))
	}
	for k := range m {
		if t.byName[k] == nil {
			r.warns = append(r.warns, fmt.Sprintf("%s: unknown field (%s)", join(path, k), name))
		}
	}
	return r
}

func (c *checker) abstract(path string, v any, t *specType) report {
	if m, ok := v.(map[string]any); ok {
		for _, sub := range t.Subtypes {
			st := c.spec.types[sub]
			if st == nil || st.discField == "" {
				continue
			}
			if tag, ok := m[st.discField].(string); ok && tag == st.discValue {
				return c.object(path, v, sub)
			}
		}
		for _, sub := range t.Subtypes {
			if st := c.spec.types[sub]; st != nil && st.discField != "" {
				return report{errs: []string{fmt.Sprintf("%s: unknown %s %v (%s)", join(path, st.discField), st.discField, m[st.discField], t.Name)}}
			}
		}
	}
	return c.matchAny(path, v, t.Subtypes)
}

func join(path, field string) string {
	if path == "" {
		return field
	}
	return path + "." + field
}

// legacyParams are parameters the official server still accepts although the
// spec no longer lists them; using them is a warning, not a violation.
func isLegacyParam(name string) bool {
	switch name {
	case "reply_to_message_id", "allow_sending_without_reply", "disable_web_page_preview":
		return true
	}
	return false
}

// checkRequest validates the parameters of a call against the spec. It
// reports violations (errs) and legacy or nested unknown fields (warns).
func (s *apiSpec) checkRequest(method string, p params) report {
	m := s.method(method)
	if m == nil {
		return report{errs: []string{fmt.Sprintf("unknown method %s", method)}}
	}
	var r report
	for _, f := range m.Fields {
		if f.Required && !p.has(f.Name) {
			r.errs = append(r.errs, fmt.Sprintf("required parameter %s missing", f.Name))
		}
	}
	if m.byName["inline_message_id"] != nil && !p.has("inline_message_id") {
		for _, name := range []string{"chat_id", "message_id"} {
			if f := m.byName[name]; f != nil && !f.Required && !p.has(name) {
				r.errs = append(r.errs, fmt.Sprintf("required parameter %s missing (inline_message_id is not specified)", name))
			}
		}
	}
	if m.Name == "editMessageText" && !p.has("text") && !p.has("rich_message") {
		r.errs = append(r.errs, "required parameter text missing (rich_message is not specified)")
	}
	c := checker{spec: s, lenient: true}
	for _, name := range p.names() {
		f := m.byName[name]
		if f == nil {
			if p[name].file != nil && p.attached(name) {
				continue
			}
			if isLegacyParam(name) {
				r.warns = append(r.warns, fmt.Sprintf("legacy parameter %s is not in the spec", name))
			} else {
				r.errs = append(r.errs, fmt.Sprintf("unknown parameter %s", name))
			}
			continue
		}
		r.add(c.matchAny(name, p.value(name), f.Types))
	}
	return r
}

// checkResult validates a successful result of method against its returns.
func (s *apiSpec) checkResult(method string, result json.RawMessage) report {
	m := s.method(method)
	if m == nil {
		return report{errs: []string{fmt.Sprintf("unknown method %s", method)}}
	}
	return s.checkJSON("result", result, m.Returns...)
}

// checkJSON validates a JSON document against a union of spec types in
// strict mode (as the server must produce it).
func (s *apiSpec) checkJSON(path string, doc json.RawMessage, types ...string) report {
	var v any
	d := json.NewDecoder(strings.NewReader(string(doc)))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		return report{errs: []string{fmt.Sprintf("%s: invalid JSON: %v", path, err)}}
	}
	c := checker{spec: s}
	return c.matchAny(path, v, types)
}
