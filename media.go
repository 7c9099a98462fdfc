package mynah

import (
	"context"
	"errors"
	"time"
)

// MediaStatus says whether a media file has a description, or why not.
type MediaStatus string

// Media statuses. A failed or unsupported file is cached too, so it is never retried by
// every message that carries it.
const (
	// MediaDescribed: Description holds what the file shows, says or contains.
	MediaDescribed MediaStatus = "described"
	// MediaFailed: the download or the describer failed Attempts times; Problem says how.
	MediaFailed MediaStatus = "failed"
	// MediaUnsupported: the file cannot be described (a format mynah cannot read, a file
	// over the Bot API's 20 MB download limit, a corrupt file); Problem says why.
	MediaUnsupported MediaStatus = "unsupported"
)

// MediaNote is what mynah knows about one media file, keyed by Telegram's
// file_unique_id, which is the same for every bot and every chat: the same sticker sent a
// thousand times is described once. Operators edit notes (`mynah media set`); the
// describer writes them.
type MediaNote struct {
	UniqueID string
	Kind     MediaKind
	SetName  string // stickers
	Emoji    string // stickers
	Status   MediaStatus
	// Description is what the file shows ("a heron standing on a fence post"), the words
	// of a voice note, or the text of a document (size-capped); empty unless Status is
	// MediaDescribed.
	Description string
	Problem     string // why there is no description: "could not be read", "over 20 MB", …
	Source      string // who wrote it: "operator", "model:<name>", "transcriber:<name>", "extract"
	Attempts    int    // failed attempts so far
	Updated     time.Time
}

// MediaFilter selects media notes to list; zero fields match everything.
type MediaFilter struct {
	Kind    MediaKind
	SetName string // case-insensitive
	Emoji   string
	Status  MediaStatus
	Limit   int // 0 = no limit
}

// MediaNotes is the persistent cache of media descriptions, shared by the agents of an
// instance.
type MediaNotes interface {
	// MediaNote returns the note of the file with uniqueID, or an error wrapping
	// ErrNotFound.
	MediaNote(ctx context.Context, uniqueID string) (MediaNote, error)
	// PutMediaNote stores n, replacing any note of the same UniqueID.
	PutMediaNote(ctx context.Context, n MediaNote) error
	// MediaNotes lists the notes f selects, most recently updated first.
	MediaNotes(ctx context.Context, f MediaFilter) ([]MediaNote, error)
	// DeleteMediaNote removes the note of uniqueID (the file is described again when next
	// seen); deleting a note that does not exist is not an error.
	DeleteMediaNote(ctx context.Context, uniqueID string) error
}

// MediaWork is a stored message with media waiting for a description.
type MediaWork struct {
	Agent   string
	Chat    ChatID
	Message MessageID
	Due     time.Time // not worked on before this time (a retry's backoff)
}

// MediaQueue is the queue of stored messages whose media wait for descriptions. A message
// joins it when it is stored (inbound, sent or edited) with an attachment that has a
// file_unique_id and no description (an imported message never does: an export or
// another bot's log carries no file id the agent's bot could download); it leaves it when
// its descriptions are set or the describer gives up. The queue survives restarts.
type MediaQueue interface {
	// PendingMedia returns up to limit queued messages due at or before now, oldest
	// first.
	PendingMedia(ctx context.Context, now time.Time, limit int) ([]MediaWork, error)
	// SetMediaDescription sets the description of each attachment of the stored message
	// whose FileUniqueID is uniqueID (the message is re-indexed for search, so the words
	// of a photo or a voice note are found like typed text). It does not touch the queue.
	// A message that does not exist is an error wrapping ErrNotFound.
	SetMediaDescription(ctx context.Context, agent string, chat ChatID, id MessageID, uniqueID, description string) error
	// DeferMedia sets when the queued message is due again.
	DeferMedia(ctx context.Context, agent string, chat ChatID, id MessageID, due time.Time) error
	// DoneMedia removes the message from the queue; removing one not queued is not an error.
	DoneMedia(ctx context.Context, agent string, chat ChatID, id MessageID) error
}

// ErrFileTooBig is the error of a download over the Bot API's limit (20 MB on Telegram's
// servers): such a file keeps a placeholder that says so.
var ErrFileTooBig = errors.New("file is too big to download")
