package telegramtest

import (
	"bytes"
	"encoding/json"
	"io"
	"maps"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// maxUpload bounds multipart bodies (the cloud Bot API accepts 50 MB).
const maxUpload = 50 << 20

// upload is a multipart file part.
type upload struct {
	name string
	data []byte
}

// param is one request parameter as the server sees it: str is its text
// (JSON values that are not strings keep their JSON text), raw is set when it
// came from a JSON body, file when it is a multipart file part.
type param struct {
	str  string
	raw  json.RawMessage
	file *upload
}

// params are the parameters of one Bot API call, merged from the query
// string and the body.
type params map[string]param

// parseParams reads the parameters of r from its query string and body
// (form-urlencoded, JSON or multipart), the way the official server does.
func parseParams(r *http.Request) (params, error) {
	p := params{}
	for k, vs := range r.URL.Query() {
		p[k] = param{str: vs[len(vs)-1]}
	}
	if r.Body == nil {
		return p, nil
	}
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch ct {
	case "application/json":
		body, err := io.ReadAll(io.LimitReader(r.Body, maxUpload))
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(body)) == 0 {
			return p, nil
		}
		jp, err := jsonParams(body)
		if err != nil {
			return nil, err
		}
		maps.Copy(p, jp)
	case "application/x-www-form-urlencoded":
		r.Body = http.MaxBytesReader(nil, r.Body, maxUpload)
		if err := r.ParseForm(); err != nil {
			return nil, err
		}
		for k, vs := range r.PostForm {
			p[k] = param{str: vs[len(vs)-1]}
		}
	case "multipart/form-data":
		if err := r.ParseMultipartForm(maxUpload); err != nil {
			return nil, err
		}
		for k, vs := range r.MultipartForm.Value {
			p[k] = param{str: vs[len(vs)-1]}
		}
		for k, fhs := range r.MultipartForm.File {
			fh := fhs[len(fhs)-1]
			f, err := fh.Open()
			if err != nil {
				return nil, err
			}
			data, err := io.ReadAll(f)
			f.Close()
			if err != nil {
				return nil, err
			}
			p[k] = param{file: &upload{name: fh.Filename, data: data}}
		}
	}
	return p, nil
}

// jsonParams turns a JSON object body (or a webhook reply) into params.
func jsonParams(body []byte) (params, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(body, &obj); err != nil {
		return nil, err
	}
	p := make(params, len(obj))
	for k, raw := range obj {
		if string(raw) == "null" {
			continue
		}
		v := param{raw: raw, str: string(raw)}
		var s string
		if json.Unmarshal(raw, &s) == nil {
			v.str = s
		}
		p[k] = v
	}
	return p, nil
}

// attached reports whether some parameter refers to the file part name
// with attach://name (possibly inside JSON, as in InputMedia).
func (p params) attached(name string) bool {
	ref := "attach://" + name
	for _, v := range p {
		if v.file == nil && strings.Contains(v.str, ref) {
			return true
		}
	}
	return false
}

func (p params) has(name string) bool { _, ok := p[name]; return ok }

func (p params) names() []string { return slices.Sorted(maps.Keys(p)) }

func (p params) str(name string) string { return p[name].str }

// int returns the parameter as an integer; ok is false when it is missing
// or not a number.
func (p params) int(name string) (v int64, ok bool) {
	pv, present := p[name]
	if !present {
		return 0, false
	}
	v, err := strconv.ParseInt(strings.TrimSpace(pv.str), 10, 64)
	return v, err == nil
}

// bool follows the server's to_bool: only true, yes and 1 are true.
func (p params) bool(name string) bool {
	switch strings.ToLower(p.str(name)) {
	case "true", "yes", "1":
		return true
	}
	return false
}

// decode unmarshals an object or array parameter, given either as JSON or
// as a JSON-serialized string.
func (p params) decode(name string, dst any) error {
	v := p[name]
	data := []byte(v.str)
	if len(v.raw) > 0 && v.raw[0] != '"' {
		data = v.raw
	}
	return json.Unmarshal(data, dst)
}

// value returns the parameter as a decoded JSON value for spec checks.
func (p params) value(name string) any {
	v := p[name]
	if v.file != nil {
		return uploadMarker{}
	}
	if v.raw == nil {
		return v.str
	}
	var out any
	d := json.NewDecoder(bytes.NewReader(v.raw))
	d.UseNumber()
	if d.Decode(&out) != nil {
		return v.str
	}
	return out
}

// InputFile is how an uploaded file appears in Call.Params.
type InputFile struct {
	Name string
	Size int
}

// export returns the parameters for the call log: JSON values decoded (numbers
// as json.Number), form values as strings, files as InputFile.
func (p params) export() map[string]any {
	out := make(map[string]any, len(p))
	for k, v := range p {
		switch {
		case v.file != nil:
			out[k] = InputFile{Name: v.file.name, Size: len(v.file.data)}
		default:
			out[k] = p.value(k)
		}
	}
	return out
}
