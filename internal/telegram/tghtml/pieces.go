package tghtml

import "github.com/mynah-ai/mynah"

// Pieces turns a reply written in Markdown into the pieces to send: Telegram HTML of at
// most MaxMessageLen characters each (Format, then Split), each with its plain-text
// fallback (Plain). An empty reply has no pieces.
func Pieces(md string) []mynah.Piece {
	if md == "" {
		return nil
	}
	var pieces []mynah.Piece
	for _, h := range Split(Format(md), MaxMessageLen) {
		pieces = append(pieces, mynah.Piece{HTML: h, Plain: Plain(h)})
	}
	return pieces
}
