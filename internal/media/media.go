// Package media gives agents their senses: what a photo shows, what a voice note says,
// what a document contains, what a sticker looks like. Every media item goes through one
// chain, and the first source that answers wins:
//
//  1. curated descriptions of the agent (agents/<Name>/media/*.json), then global ones
//     (media/*.json), written by hand and reloaded when the files change;
//  2. the store's cache of notes by file_unique_id, shared by every agent of the instance
//     (a file that cannot be described is cached too, so it is never retried);
//  3. the budget gate: at most Agent.Budget downloads and model calls a minute per agent;
//  4. the describer (a model that sees images), the transcriber (speech to text) and the
//     extractors (PDF and text files, Lottie metadata), which need a download.
//
// Descriptions land in mynah.Media.Description of the stored message, so the prompt, the
// search index and summaries see them as text. Files are held in memory (or, for ffmpeg,
// a temporary file) only while they are described, unless Agent.KeepFiles asks to keep
// them.
//
// The Engine serves the turn (Prepare: descriptions known without a download for the
// whole history; for the messages being answered, images for a vision model and what
// cannot wait, such as a voice note's words) and works the store's media queue in the
// background (Run), within each agent's budget, so a burst of photos never delays a reply.
package media

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/llm"
)

const (
	// maxDownload is the Bot API's getFile limit: larger files keep a placeholder.
	maxDownload = 20 << 20
	// maxText caps the text stored for a document: the prompt shows an excerpt, search
	// finds the rest.
	maxText = 64 << 10
	// DefaultBudget is Agent.Budget when not set: downloads and model calls a minute.
	DefaultBudget = 8
	// maxAttempts is how often a failing download or describer call is tried before the
	// failure is cached.
	maxAttempts = 4
)

// Files downloads an agent's Telegram files. telegram.Bot implements it.
type Files interface {
	// Download returns the file's bytes; a file over max (or Telegram's limit) is an
	// error wrapping mynah.ErrFileTooBig. Errors never carry the token-bearing file URL.
	Download(ctx context.Context, fileID string, max int64) ([]byte, error)
	// StickerSet returns the stickers of the set called name (Media with FileID,
	// FileUniqueID, Emoji and SetName; MimeType when known).
	StickerSet(ctx context.Context, name string) ([]mynah.Media, error)
}

// Store is what the engine reads and writes: the cache of notes, the queue of messages
// waiting for descriptions, and the stored messages themselves.
type Store interface {
	mynah.MediaNotes
	mynah.MediaQueue
	Message(ctx context.Context, agent string, chat mynah.ChatID, id mynah.MessageID) (mynah.Message, error)
}

// Agent is one agent's senses. Zero values take the documented defaults; a nil model or
// transcriber leaves what it would describe as a placeholder.
type Agent struct {
	Name string
	// Curated are the directories of curated JSON, in order of precedence: the agent's
	// (agents/<Name>/media), then the global one (media/). A missing directory has none.
	Curated []string
	// Budget is how many downloads and model calls the agent may spend a minute: one per
	// media item worked on (its download and its call together). Default DefaultBudget.
	// Cache hits and curated descriptions are free.
	Budget int
	// Vision says that the agent's model takes images: the images of the messages being
	// answered are attached to the prompt instead of being described first.
	Vision bool
	// Describer describes images and video frames (media.model, default the agent's
	// model); DescriberModel is the model name put in its requests.
	Describer      llm.Model
	DescriberModel string
	// Transcriber turns voice notes, audio and video notes into words (media.transcribe).
	Transcriber llm.Transcriber
	// Files downloads the agent's files and reads its sticker sets.
	Files Files
	// StickerSets are the sticker sets of the agent's catalogue; an entry "Set::emoji"
	// is one sticker of a set.
	StickerSets []string
	// KeepFiles is a directory to keep downloaded files in (media.keep_files); empty
	// means files are never stored.
	KeepFiles string
}

// Engine runs the description chain for the agents added to it. It is safe for
// concurrent use; Run works the store's queue in the background.
type Engine struct {
	store Store
	log   *slog.Logger
	now   func() time.Time

	// every is how often Run looks for due work; curatedEvery how often it checks the
	// curated directories for changes. workers bounds the items worked on at once.
	every, curatedEvery time.Duration
	workers             int

	ffmpegOnce sync.Once
	ffmpeg     string // path of ffmpeg; "" when it is not installed
	noFFmpeg   sync.Once

	mu      sync.Mutex
	agents  map[string]*agent
	curated map[string]*curatedDir // by directory, shared by the agents that name it
	flights map[string]*flight     // work in progress, by key
	notes   noteCache
	recent  recentFiles
}

// agent is an added Agent with its state.
type agent struct {
	Agent
	budget  budget                 // guarded by Engine.mu
	sets    map[string]*stickerSet // catalogue, guarded by Engine.mu
	wanted  map[string]mynah.Media // catalogue stickers to describe, by unique id; Engine.mu
	curated []*curatedDir
}

// New returns an engine over store that logs to log (nil: discard) and tells time by now
// (nil: time.Now). It does no I/O.
func New(store Store, log *slog.Logger, now func() time.Time) *Engine {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if now == nil {
		now = time.Now
	}
	return &Engine{
		store: store, log: log, now: now,
		every: time.Second, curatedEvery: 3 * time.Second, workers: 4,
		agents:  map[string]*agent{},
		curated: map[string]*curatedDir{},
		flights: map[string]*flight{},
		notes:   noteCache{m: map[string]cachedNote{}},
		recent:  recentFiles{m: map[string]recentFile{}},
	}
}

// Add adds an agent, or replaces the agent of the same name. It does no I/O: curated
// files are read when first needed.
func (e *Engine) Add(a Agent) {
	if a.Budget <= 0 {
		a.Budget = DefaultBudget
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	ag := &agent{Agent: a, sets: map[string]*stickerSet{}, wanted: map[string]mynah.Media{}}
	for _, dir := range a.Curated {
		c := e.curated[dir]
		if c == nil {
			c = &curatedDir{dir: dir}
			e.curated[dir] = c
		}
		ag.curated = append(ag.curated, c)
	}
	e.agents[a.Name] = ag
}

// agent returns the added agent called name, or nil.
func (e *Engine) agent(name string) *agent {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.agents[name]
}
