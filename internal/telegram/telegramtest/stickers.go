package telegramtest

import (
	"context"
	"strings"
)

// StickerSet is a sticker set as getStickerSet returns it.
type StickerSet struct {
	Name        string    `json:"name"`
	Title       string    `json:"title"`
	StickerType string    `json:"sticker_type"`
	Stickers    []Sticker `json:"stickers"`
}

// msgStickerSetInvalid is Telegram's answer to getStickerSet for a set that does not exist.
const msgStickerSetInvalid = "STICKERSET_INVALID"

// AddStickerSet creates a regular sticker set called name with one static sticker per
// emoji, in order, each a stored file bots can send by its file_id, and returns the set.
// The stickers' files are placeholders, not images; use AddStickerSetFiles for real ones.
func (s *Server) AddStickerSet(name, title string, emoji ...string) StickerSet {
	files := make([]StickerFile, len(emoji))
	for i, e := range emoji {
		files[i] = StickerFile{Emoji: e, Data: []byte("RIFF sticker " + e)}
	}
	return s.AddStickerSetFiles(name, title, files...)
}

// StickerFile is the content of one sticker of a set made by
// AddStickerSetFiles.
type StickerFile struct {
	Emoji string
	// Data is the sticker's file: a WEBP image, a WEBM video or a TGS
	// (gzipped Lottie) animation.
	Data []byte
}

// AddStickerSetFiles creates a regular sticker set called name with the
// given stickers, in order, each a stored file bots can download and send
// by its file_id, and returns the set. A sticker's format follows its data
// (see AddFile): is_animated for gzip, is_video for WEBM, else static. A
// set added again under the same name replaces the old one.
func (s *Server) AddStickerSetFiles(name, title string, stickers ...StickerFile) StickerSet {
	s.mu.Lock()
	defer s.mu.Unlock()
	set := &StickerSet{Name: name, Title: title, StickerType: "regular"}
	for _, st := range stickers {
		f := s.addFileLocked(st.Data, KindSticker, "")
		set.Stickers = append(set.Stickers, *sticker(f, st.Emoji, name))
	}
	if s.stickerSets == nil {
		s.stickerSets = map[string]*StickerSet{}
	}
	s.stickerSets[strings.ToLower(name)] = set
	return *set
}

// getStickerSet answers with the set added under name (names are case-insensitive, as
// Telegram's are).
func (s *Server) getStickerSet(_ context.Context, _ *bot, p params) (any, string, *Error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	set := s.stickerSets[strings.ToLower(p.str("name"))]
	if set == nil {
		return nil, "", badRequest(msgStickerSetInvalid)
	}
	return *set, "", nil
}

// setStickerLocked returns the sticker of an added set whose file is fileID, or nil. The
// caller holds s.mu.
func (s *Server) setStickerLocked(fileID string) *Sticker {
	for _, set := range s.stickerSets {
		for _, st := range set.Stickers {
			if st.FileID == fileID {
				return &st
			}
		}
	}
	return nil
}
