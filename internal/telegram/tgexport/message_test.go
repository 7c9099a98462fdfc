package tgexport_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mynah-ai/mynah"
)

// TestMessage: how one exported message becomes a mynah.Message, or what is wrong with it.
func TestMessage(t *testing.T) {
	at := time.Unix(1714557600, 0).UTC()
	alice := mynah.User{ID: 1001, FirstName: "Alice", LastName: "Liddell"}
	const base = `"id": 7, "type": "message", "date": "2024-05-01T12:00:00", "date_unixtime": "1714557600", "from": "Alice Liddell", "from_id": "user1001"`
	for _, tc := range []struct {
		name, fields string // fields follow base, or replace it when they start with "id"
		want         mynah.Message
		err          string
	}{
		{name: "plain text", fields: `"text": "hello"`,
			want: mynah.Message{ID: 7, Time: at, Sender: alice, Text: "hello"}},
		{name: "no text", fields: ``,
			want: mynah.Message{ID: 7, Time: at, Sender: alice}},
		{name: "entities flattened", fields: `"text": ["see ", {"type": "link", "text": "https://example.org"}, " and ", {"type": "mention", "text": "@bob"}, {"type": "italic", "text": "!"}]`,
			want: mynah.Message{ID: 7, Time: at, Sender: alice, Text: "see https://example.org and @bob!"}},
		{name: "entity without text", fields: `"text": ["a", {"type": "custom_emoji"}, "b"]`,
			want: mynah.Message{ID: 7, Time: at, Sender: alice, Text: "ab"}},
		{name: "text is a number", fields: `"text": 3`, err: `"text" is neither a string nor an array`},
		{name: "text holds a number", fields: `"text": ["a", 3]`, err: `"text" holds an element that is neither a string nor an entity`},
		{name: "reply", fields: `"reply_to_message_id": 6, "text": "yes"`,
			want: mynah.Message{ID: 7, Time: at, Sender: alice, Text: "yes", ReplyTo: &mynah.ReplyRef{ID: 6}}},
		{name: "edited", fields: `"edited": "2024-05-01T12:01:40", "edited_unixtime": "1714557700", "text": "fixed"`,
			want: mynah.Message{ID: 7, Time: at, Edited: time.Unix(1714557700, 0).UTC(), Sender: alice, Text: "fixed"}},
		{name: "bad edited", fields: `"edited_unixtime": "soon", "text": "fixed"`,
			err: `"edited_unixtime": "date_unixtime" "soon" is not a Unix time`},

		{name: "old export, local time only", fields: `"id": 7, "type": "message", "date": "2019-03-04T05:06:07", "from": "Alice Liddell", "from_id": "user1001", "text": "old"`,
			want: mynah.Message{ID: 7, Time: time.Date(2019, 3, 4, 5, 6, 7, 0, time.UTC), Sender: alice, Text: "old"}},
		{name: "bad local time", fields: `"id": 7, "type": "message", "date": "yesterday", "from": "Alice", "from_id": "user1001"`,
			err: `"date" "yesterday" is not a time like 2024-05-01T18:30:00`},
		{name: "bad unix time", fields: `"id": 7, "type": "message", "date_unixtime": "-5", "from": "Alice", "from_id": "user1001"`,
			err: `"date_unixtime" "-5" is not a Unix time`},
		{name: "id 0", fields: `"id": 0, "type": "message", "date_unixtime": "1714557600", "from_id": "user1001"`,
			err: `"id" 0 is not between 1 and 2147483647`},
		{name: "id beyond 32 bits", fields: `"id": 2147483648, "type": "message", "date_unixtime": "1714557600", "from_id": "user1001"`,
			err: `"id" 2147483648 is not between 1 and 2147483647`},
		{name: "largest id", fields: `"id": 2147483647, "type": "message", "date_unixtime": "1714557600", "from": "Bob", "from_id": "user1002"`,
			want: mynah.Message{ID: 2147483647, Time: at, Sender: mynah.User{ID: 1002, FirstName: "Bob"}}},

		{name: "name trimmed and split once", fields: `"id": 7, "type": "message", "date_unixtime": "1714557600", "from": " Jean Luc  Picard ", "from_id": "user3"`,
			want: mynah.Message{ID: 7, Time: at, Sender: mynah.User{ID: 3, FirstName: "Jean", LastName: "Luc  Picard"}}},
		{name: "channel posting as itself", fields: `"id": 7, "type": "message", "date_unixtime": "1714557600", "from": "Bird News", "from_id": "channel77", "text": "news"`,
			want: mynah.Message{ID: 7, Time: at, Sender: mynah.User{ID: -1000000000077, FirstName: "Bird News"}, Text: "news"}},
		{name: "no from_id", fields: `"id": 7, "type": "message", "date_unixtime": "1714557600", "from": "Ghost"`,
			err: `"from_id" "" is not like user123 or channel123`},
		{name: "user 0", fields: `"id": 7, "type": "message", "date_unixtime": "1714557600", "from_id": "user0"`,
			err: `"from_id" "user0" is not like user123 or channel123`},
		{name: "channel not a number", fields: `"id": 7, "type": "message", "date_unixtime": "1714557600", "from_id": "channelX"`,
			err: `"from_id" "channelX" is not like user123 or channel123`},

		{name: "photo", fields: `"photo": "photos/p.jpg", "photo_file_size": 48211, "width": 800, "height": 600, "text": "look"`,
			want: mynah.Message{ID: 7, Time: at, Sender: alice, Text: "look", Media: []mynah.Media{{Kind: mynah.MediaPhoto, Width: 800, Height: 600, Size: 48211}}}},
		{name: "sticker", fields: `"file": "s.webp", "media_type": "sticker", "sticker_emoji": "🐦", "width": 512, "height": 512`,
			want: mynah.Message{ID: 7, Time: at, Sender: alice, Media: []mynah.Media{{Kind: mynah.MediaSticker, Emoji: "🐦", Width: 512, Height: 512}}}},
		{name: "animation", fields: `"media_type": "animation", "file_name": "a.mp4", "width": 320, "height": 240, "duration_seconds": 3`,
			want: mynah.Message{ID: 7, Time: at, Sender: alice, Media: []mynah.Media{{Kind: mynah.MediaAnimation, FileName: "a.mp4", Width: 320, Height: 240, Duration: 3}}}},
		{name: "video", fields: `"media_type": "video_file", "file_name": "v.mp4", "duration_seconds": 60`,
			want: mynah.Message{ID: 7, Time: at, Sender: alice, Media: []mynah.Media{{Kind: mynah.MediaVideo, FileName: "v.mp4", Duration: 60}}}},
		{name: "video note", fields: `"media_type": "video_message", "duration_seconds": 9`,
			want: mynah.Message{ID: 7, Time: at, Sender: alice, Media: []mynah.Media{{Kind: mynah.MediaVideoNote, Duration: 9}}}},
		{name: "voice", fields: `"media_type": "voice_message", "duration_seconds": 4, "file_size": 9120`,
			want: mynah.Message{ID: 7, Time: at, Sender: alice, Media: []mynah.Media{{Kind: mynah.MediaVoice, Duration: 4, Size: 9120}}}},
		{name: "audio", fields: `"media_type": "audio_file", "file_name": "song.mp3", "duration_seconds": 200`,
			want: mynah.Message{ID: 7, Time: at, Sender: alice, Media: []mynah.Media{{Kind: mynah.MediaAudio, FileName: "song.mp3", Duration: 200}}}},
		{name: "unknown media kept as its type", fields: `"media_type": "hologram"`,
			want: mynah.Message{ID: 7, Time: at, Sender: alice, Media: []mynah.Media{{Kind: mynah.MediaKind("hologram")}}}},
		{name: "photo wins over media_type", fields: `"photo": "p.jpg", "media_type": "sticker", "width": 1, "height": 2`,
			want: mynah.Message{ID: 7, Time: at, Sender: alice, Media: []mynah.Media{{Kind: mynah.MediaPhoto, Width: 1, Height: 2}}}},

		{name: "forwarded from a user", fields: `"forwarded_from": "Bob Smith", "forwarded_from_id": "user1002", "text": "fwd"`,
			want: mynah.Message{ID: 7, Time: at, Sender: alice, Text: "fwd", Forward: &mynah.Forward{Kind: "user", From: mynah.User{ID: 1002, FirstName: "Bob", LastName: "Smith"}}}},
		{name: "forwarded from a channel", fields: `"forwarded_from": "Bird News", "forwarded_from_id": "channel77", "text": "fwd"`,
			want: mynah.Message{ID: 7, Time: at, Sender: alice, Text: "fwd", Forward: &mynah.Forward{Kind: "channel", Name: "Bird News", ChatID: -1000000000077}}},
		{name: "forwarded from a basic group", fields: `"forwarded_from": "Old Group", "forwarded_from_id": "chat55", "text": "fwd"`,
			want: mynah.Message{ID: 7, Time: at, Sender: alice, Text: "fwd", Forward: &mynah.Forward{Kind: "chat", Name: "Old Group", ChatID: -55}}},
		{name: "forwarded from a hidden user", fields: `"forwarded_from": "Secret Sam", "text": "fwd"`,
			want: mynah.Message{ID: 7, Time: at, Sender: alice, Text: "fwd", Forward: &mynah.Forward{Kind: "hidden_user", Name: "Secret Sam"}}},
		{name: "forwarded, bad id", fields: `"forwarded_from": "Who", "forwarded_from_id": "user0"`,
			want: mynah.Message{ID: 7, Time: at, Sender: alice, Forward: &mynah.Forward{Kind: "hidden_user", Name: "Who"}}},

		{name: "document", fields: `"file": "files/report.pdf", "file_name": "report.pdf", "file_size": 1234, "mime_type": "application/pdf", "text": "the report"`,
			want: mynah.Message{ID: 7, Time: at, Sender: alice, Text: "the report", Media: []mynah.Media{{Kind: mynah.MediaDocument, MimeType: "application/pdf", FileName: "report.pdf", Size: 1234}}}},
		{name: "image sent as a file", fields: `"file": "files/bird.png", "file_name": "bird.png", "mime_type": "image/png"`,
			want: mynah.Message{ID: 7, Time: at, Sender: alice, Media: []mynah.Media{{Kind: mynah.MediaDocument, MimeType: "image/png", FileName: "bird.png"}}}},
		{name: "file not exported", fields: `"file": "(File not included. Change data exporting settings to download.)", "mime_type": "application/zip"`,
			want: mynah.Message{ID: 7, Time: at, Sender: alice, Media: []mynah.Media{{Kind: mynah.MediaDocument, MimeType: "application/zip"}}}},
		{name: "media with mime type", fields: `"file": "v.ogg", "media_type": "voice_message", "mime_type": "audio/ogg", "duration_seconds": 4`,
			want: mynah.Message{ID: 7, Time: at, Sender: alice, Media: []mynah.Media{{Kind: mynah.MediaVoice, MimeType: "audio/ogg", Duration: 4}}}},
		{name: "poll", fields: `"poll": {"question": "Lunch where?", "closed": false, "total_voters": 3, "answers": [{"text": "Pizza", "voters": 2, "chosen": true}, {"text": "Sushi", "voters": 1, "chosen": false}]}`,
			want: mynah.Message{ID: 7, Time: at, Sender: alice, Media: []mynah.Media{{Kind: mynah.MediaPoll, Description: "Lunch where?\n- Pizza\n- Sushi"}}}},
		{name: "contact, phone dropped", fields: `"contact_information": {"first_name": "Dora", "last_name": "Explorer", "phone_number": "+49 30 1234567"}`,
			want: mynah.Message{ID: 7, Time: at, Sender: alice, Media: []mynah.Media{{Kind: mynah.MediaContact, Description: "Dora Explorer"}}}},
		{name: "contact without a name", fields: `"contact_information": {"first_name": "", "last_name": "", "phone_number": "+49 30 1234567"}`,
			want: mynah.Message{ID: 7, Time: at, Sender: alice, Media: []mynah.Media{{Kind: mynah.MediaContact}}}},
		{name: "location", fields: `"location_information": {"latitude": 52.52, "longitude": 13.405}`,
			want: mynah.Message{ID: 7, Time: at, Sender: alice, Media: []mynah.Media{{Kind: mynah.MediaLocation, Description: "52.52,13.405"}}}},
		{name: "live location", fields: `"location_information": {"latitude": -33.8688, "longitude": 151.2093}, "live_location_period_seconds": 900`,
			want: mynah.Message{ID: 7, Time: at, Sender: alice, Media: []mynah.Media{{Kind: mynah.MediaLocation, Description: "-33.8688,151.2093"}}}},
		{name: "venue", fields: `"place_name": "Tiergarten", "address": "Strasse des 17. Juni, Berlin", "location_information": {"latitude": 52.5145, "longitude": 13.3501}`,
			want: mynah.Message{ID: 7, Time: at, Sender: alice, Media: []mynah.Media{{Kind: "venue", Description: "Tiergarten, Strasse des 17. Juni, Berlin"}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fields := tc.fields
			switch {
			case fields == "":
				fields = base
			case !strings.HasPrefix(fields, `"id":`):
				fields = base + ", " + fields
			}
			got, err := decodeAll(t, `{"messages": [{`+fields+`}]}`)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 {
				t.Fatalf("Decode yielded %d messages, want 1", len(got))
			}
			if got[0].Err != tc.err {
				t.Errorf("error %q, want %q", got[0].Err, tc.err)
			}
			if diff := cmp.Diff(got[0].Msg, tc.want); diff != "" {
				t.Errorf("message (-got +want):\n%s", diff)
			}
		})
	}
}
