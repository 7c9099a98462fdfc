package llm

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
)

// This file holds what every provider adapter does alike, so each adapter keeps only
// what its SDK makes different.

// Endpoint checks the settings every adapter's Config holds and fills their defaults: a
// key is required, baseURL (def when empty) must be an absolute http(s) URL, and a nil
// client is http.DefaultClient. Errors name the provider, never the key.
func Endpoint(provider, apiKey, baseURL, def string, hc *http.Client) (*url.URL, *http.Client, error) {
	if apiKey == "" {
		return nil, nil, errors.New(provider + ": Config.APIKey is required")
	}
	if baseURL == "" {
		baseURL = def
	}
	u, err := url.Parse(baseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, nil, errors.New(provider + ": Config.BaseURL must be an absolute http(s) URL")
	}
	if hc == nil {
		hc = http.DefaultClient
	}
	return u, hc, nil
}

// Scrub removes key from s, text that may echo request details (an error message).
func Scrub(s, key string) string {
	if key == "" {
		return s
	}
	return strings.ReplaceAll(s, key, "REDACTED")
}

// SDKStream is the iterator an SDK's streaming call returns (openai-go's and
// anthropic-sdk-go's ssestream.Stream).
type SDKStream[E any] interface {
	Next() bool
	Current() E
	Err() error
}

// Drain reads s to its end, handing each event to add and the text add returns, if any,
// to onText (which may be nil). It returns the stream's error.
func Drain[E any](s SDKStream[E], add func(E) string, onText func(string)) error {
	for s.Next() {
		if text := add(s.Current()); text != "" && onText != nil {
			onText(text)
		}
	}
	return s.Err()
}
