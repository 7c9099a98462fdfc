package main

import (
	"fmt"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"time"

	"github.com/mynah-ai/mynah/internal/llm"
	"github.com/mynah-ai/mynah/internal/media"
)

// mediaConfig is the media key of an agent's settings: how it sees, hears and reads what
// it is sent (README: Media).
type mediaConfig struct {
	// Budget bounds the downloads and model calls the describer makes per minute; past
	// it, media keep their placeholders and are described later, in the background.
	Budget int `yaml:"budget"`
	// Model describes images ("provider/model"); empty: the agent's own model.
	Model string `yaml:"model"`
	// Transcribe turns voice into text: "provider/model" (an OpenAI-compatible
	// /audio/transcriptions endpoint, or a Gemini model), "off", or empty for the
	// provider's default (OpenAI: whisper-1; Gemini: the agent's model; others: off).
	Transcribe string `yaml:"transcribe"`
	// Vision: the agent's model takes images, so the photo being answered is shown to
	// it; false describes it first with media.model, and the model reads the description.
	Vision bool `yaml:"vision"`
	// KeepFiles stores downloaded files under the data dir (media/files); by default a
	// file is held only while it is described.
	KeepFiles bool `yaml:"keep_files"`
}

func defaultMedia() mediaConfig { return mediaConfig{Budget: 8, Vision: true} }

// validate checks the media settings of file, their keys under prefix.
func (m mediaConfig) validate(file, prefix string) error {
	bad := func(key, msg string) error { return &configError{file, prefix + key, msg} }
	if m.Budget < 1 || m.Budget > 10000 {
		return bad("budget", fmt.Sprintf("%d is not between 1 and 10000", m.Budget))
	}
	for _, k := range []struct{ key, v string }{{"model", m.Model}, {"transcribe", m.Transcribe}} {
		if k.v == "" || k.key == "transcribe" && k.v == "off" {
			continue
		}
		if p, model, ok := strings.Cut(k.v, "/"); !ok || p == "" || model == "" {
			return bad(k.key, fmt.Sprintf("%q must be provider/model, e.g. openai/gpt-4o-mini", k.v))
		}
	}
	return nil
}

// defaultTranscriber is the transcription model of a provider kind when media.transcribe
// is empty: "" when the kind has none.
func defaultTranscriber(kind, chatModel string) string {
	switch kind {
	case "openai":
		return "whisper-1"
	case "gemini":
		return chatModel
	}
	return ""
}

// mediaRefs resolves the agent's describer and transcriber settings against the
// configured providers: the describer defaults to the agent's model, the transcriber to
// its provider's default (none: ok false).
func mediaRefs(cfg *config, a *agentConfig, opts loadOptions) (describer modelRef, transcriber modelRef, transcribes bool, err error) {
	describer = modelRef{Name: a.Model, ID: a.ModelID, Provider: a.Provider}
	resolve := func(key, name string) (modelRef, error) {
		provider, model, _ := strings.Cut(name, "/")
		p, k, err := cfg.lookupProvider(a.File, "media."+key, provider)
		if err != nil {
			return modelRef{}, err
		}
		if k.missingKey(p) && !opts.NoKeys {
			if err := opts.missingSecret(&configError{a.File, "media." + key, fmt.Sprintf("provider %q has no API key: set %s", provider, k.KeyVar)}); err != nil {
				return modelRef{}, err
			}
		}
		return modelRef{Name: name, ID: model, Provider: p}, nil
	}
	if a.Media.Model != "" {
		if describer, err = resolve("model", a.Media.Model); err != nil {
			return
		}
	}
	switch t := a.Media.Transcribe; t {
	case "off":
		return describer, modelRef{}, false, nil
	case "":
		id := defaultTranscriber(a.Provider.Kind, a.ModelID)
		if id == "" {
			return describer, modelRef{}, false, nil
		}
		return describer, modelRef{Name: a.ProviderName + "/" + id, ID: id, Provider: a.Provider}, true, nil
	default:
		transcriber, err = resolve("transcribe", t)
		if err != nil {
			return
		}
		if k, _ := kindOf(transcriber.Provider.Kind); k.NewTranscriber == nil {
			kind := transcriber.Provider.Kind
			return describer, transcriber, false, &configError{a.File, "media.transcribe",
				fmt.Sprintf("provider %q (%s) cannot transcribe: use an openai (or OpenAI-compatible, e.g. a local whisper server) or gemini provider, or off", transcriber.Name, kind)}
		}
		return describer, transcriber, true, nil
	}
}

// describerTokens bounds a description: a sentence or two.
const describerTokens = 300

// mediaAgent is agent a's senses for the media engine: its describer and transcriber
// (with the agent's timeouts and retries), its curated descriptions, and files, the bot
// that downloads its files (nil for offline commands).
func mediaAgent(cfg *config, a agentConfig, files media.Files, hc *http.Client, log *slog.Logger) (media.Agent, error) {
	deadlines := llm.Deadlines{FirstToken: time.Duration(a.Timeouts.FirstToken), Total: time.Duration(a.Timeouts.Total)}
	retry := llm.RetryPolicy{Logger: log.With("agent", a.Name, "purpose", "media")}
	describer, err := newAdapter(a.Describer.Provider, describerTokens, hc)
	if err != nil {
		return media.Agent{}, fmt.Errorf("agent %s: media.model %s: %w", a.Name, a.Describer.Name, err)
	}
	ma := media.Agent{
		Name: a.Name,
		Curated: []string{
			filepath.Join(filepath.Dir(a.File), a.Name, "media"),
			filepath.Join(cfg.Dir, "media"),
		},
		Budget:         a.Media.Budget,
		Vision:         a.Media.Vision,
		Describer:      llm.WithRetry(llm.WithDeadlines(describer, deadlines), retry),
		DescriberModel: a.Describer.ID,
		Files:          files,
		StickerSets:    a.Stickers,
	}
	if a.Media.KeepFiles {
		ma.KeepFiles = filepath.Join(cfg.DataDir, "media", "files")
	}
	if a.Transcribes {
		k, _ := kindOf(a.Transcriber.Provider.Kind)
		t, err := k.NewTranscriber(a.Transcriber.Provider, a.Transcriber.ID, hc)
		if err != nil {
			return media.Agent{}, fmt.Errorf("agent %s: media.transcribe %s: %w", a.Name, a.Transcriber.Name, err)
		}
		ma.Transcriber = llm.WithTranscribeRetry(llm.WithTranscribeDeadlines(t, deadlines), retry)
	}
	return ma, nil
}
