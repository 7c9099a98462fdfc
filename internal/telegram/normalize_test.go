package telegram

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mymmrac/telego"

	"github.com/mynah-ai/mynah"
)

func at(sec int64) time.Time { return time.Unix(sec, 0).UTC() }

var (
	anna      = mynah.User{ID: 5551234, FirstName: "Anna", Username: "annap"}
	annaFull  = mynah.User{ID: 5551234, FirstName: "Anna", LastName: "Petrova", Username: "annap"}
	mynahBot  = mynah.User{ID: 6000000001, FirstName: "Mynah", Username: "mynah_bot", IsBot: true}
	annaChat  = mynah.Chat{ID: 5551234, Type: mynah.ChatPrivate, Username: "annap"}
	birdClub  = mynah.Chat{ID: -1001234567890, Type: mynah.ChatSupergroup, Title: "Птичий клуб"}
	birdClubU = mynah.Chat{ID: -1001234567890, Type: mynah.ChatSupergroup, Title: "Птичий клуб", Username: "birdclub"}
	lab       = mynah.Chat{ID: -1001112223334, Type: mynah.ChatSupergroup, Title: "Mynah Lab", IsForum: true}
	birdNews  = mynah.User{ID: -1009876543210, FirstName: "Bird News", Username: "birdnews"}
)

func TestNormalize(t *testing.T) {
	anya := mynah.User{ID: 7770001, FirstName: "Анна", LastName: "Смирнова"}
	boris := mynah.User{ID: 8880001, FirstName: "Boris", Username: "boris"}
	tests := []struct {
		fixture string
		want    mynah.Update
	}{
		{"private_text", mynah.Update{ID: 730001, Kind: "message", Chat: mynah.Chat{ID: 5551234, Type: mynah.ChatPrivate, Username: "annap"},
			Users: []mynah.User{annaFull},
			Message: &mynah.Message{Chat: annaChat, ID: 17, Sender: annaFull, Time: at(1763683200), Text: "/start hello",
				Entities: []mynah.Entity{{Type: "bot_command", Offset: 0, Length: 6}}}}},
		{"group_mention", mynah.Update{ID: 730002, Kind: "message", Chat: birdClubU, Users: []mynah.User{anna, anya},
			Message: &mynah.Message{Chat: birdClubU, ID: 2041, Sender: anna, Time: at(1763683260),
				Text: "Привет 👋 @mynah_bot, спроси у Анны про 🦜 попугая",
				Entities: []mynah.Entity{
					{Type: "mention", Offset: 10, Length: 10},
					{Type: "text_mention", Offset: 31, Length: 4, User: &anya},
					{Type: "custom_emoji", Offset: 40, Length: 2},
				}}}},
		{"reply", mynah.Update{ID: 730003, Kind: "message", Chat: birdClub, Users: []mynah.User{anna, mynahBot},
			Message: &mynah.Message{Chat: birdClub, ID: 2045, Sender: anna, Time: at(1763683320), Text: "Really?",
				ReplyTo: &mynah.ReplyRef{ID: 2042, Sender: mynahBot, Text: "Parrots can live for 60 years."}}}},
		{"external_reply", mynah.Update{ID: 730017, Kind: "message", Chat: annaChat, Users: []mynah.User{anna, birdNews},
			Message: &mynah.Message{Chat: annaChat, ID: 24, Sender: anna, Time: at(1763684140), Text: "is this true?",
				ReplyTo: &mynah.ReplyRef{Sender: birdNews, Text: "imitate human speech"}}}},
		{"forward_user", mynah.Update{ID: 730004, Kind: "message", Chat: annaChat, Users: []mynah.User{anna, boris},
			Message: &mynah.Message{Chat: annaChat, ID: 18, Sender: anna, Time: at(1763683400), Text: "see you at 8",
				Forward: &mynah.Forward{Kind: "user", From: boris, Date: at(1763600000)}}}},
		{"forward_hidden_user", mynah.Update{ID: 730005, Kind: "message", Chat: annaChat, Users: []mynah.User{anna},
			Message: &mynah.Message{Chat: annaChat, ID: 19, Sender: anna, Time: at(1763683460), Text: "don't tell anyone",
				Forward: &mynah.Forward{Kind: "hidden_user", Name: "Secret Sam", Date: at(1763600100)}}}},
		{"forward_channel", mynah.Update{ID: 730006, Kind: "message", Chat: annaChat, Users: []mynah.User{anna},
			Message: &mynah.Message{Chat: annaChat, ID: 20, Sender: anna, Time: at(1763683520), Text: "Mynahs can imitate human speech.",
				Forward: &mynah.Forward{Kind: "channel", Name: "Bird News", ChatID: -1009876543210, MessageID: 311, Date: at(1763500000)}}}},
		{"photo_caption", mynah.Update{ID: 730007, Kind: "message", Chat: birdClub, Users: []mynah.User{anna}, MediaGroup: "13813718282468321",
			Message: &mynah.Message{Chat: birdClub, ID: 2050, Sender: anna, Time: at(1763683580), Text: "Кеша 🦜 на балконе",
				Entities: []mynah.Entity{{Type: "bold", Offset: 0, Length: 4}},
				Media: []mynah.Media{{Kind: mynah.MediaPhoto, FileID: "AgACAgIAAxkBAAIBM2c_x", FileUniqueID: "AQADs_x",
					MimeType: "image/jpeg", Width: 1280, Height: 960, Size: 105231}}}}},
		// The size for a vision model: the largest of at most 1280 px, not the 2560 px one…
		{"photo_large", mynah.Update{ID: 730024, Kind: "message", Chat: birdClub, Users: []mynah.User{anna},
			Message: &mynah.Message{Chat: birdClub, ID: 2090, Sender: anna, Time: at(1763684400),
				Media: []mynah.Media{{Kind: mynah.MediaPhoto, FileID: "AgACAgIAAxkBAAIBN_y", FileUniqueID: "AQADn_y",
					MimeType: "image/jpeg", Width: 1280, Height: 720, Size: 176533}}}}},
		// …and when every size is larger, the smallest.
		{"photo_only_huge", mynah.Update{ID: 730025, Kind: "message", Chat: birdClub, Users: []mynah.User{anna},
			Message: &mynah.Message{Chat: birdClub, ID: 2091, Sender: anna, Time: at(1763684410),
				Media: []mynah.Media{{Kind: mynah.MediaPhoto, FileID: "AgACAgIAAxkBAAIBP_y", FileUniqueID: "AQADp_y",
					MimeType: "image/jpeg", Width: 1600, Height: 1440, Size: 301877}}}}},
		{"sticker", mynah.Update{ID: 730008, Kind: "message", Chat: annaChat, Users: []mynah.User{anna},
			Message: &mynah.Message{Chat: annaChat, ID: 21, Sender: anna, Time: at(1763683640),
				Media: []mynah.Media{{Kind: mynah.MediaSticker, FileID: "CAACAgIAAxkBAAICmGc", FileUniqueID: "AgADnw",
					MimeType: "application/x-tgsticker", Emoji: "😂", SetName: "HotCherry", Width: 512, Height: 512, Size: 31204}}}}},
		{"sticker_video", mynah.Update{ID: 730031, Kind: "message", Chat: annaChat, Users: []mynah.User{anna},
			Message: &mynah.Message{Chat: annaChat, ID: 33, Sender: anna, Time: at(1763684760),
				Media: []mynah.Media{{Kind: mynah.MediaSticker, FileID: "CAACAgIAAxkBAAIDv", FileUniqueID: "AgADvs",
					MimeType: "video/webm", Emoji: "💻", SetName: "MrRibbit", Width: 512, Height: 512, Size: 40211}}}}},
		{"sticker_static", mynah.Update{ID: 730032, Kind: "message", Chat: annaChat, Users: []mynah.User{anna},
			Message: &mynah.Message{Chat: annaChat, ID: 34, Sender: anna, Time: at(1763684820),
				Media: []mynah.Media{{Kind: mynah.MediaSticker, FileID: "CAACAgIAAxkBAAIDw", FileUniqueID: "AgADws",
					MimeType: "image/webp", Emoji: "🐸", SetName: "MrRibbit", Width: 512, Height: 498, Size: 21877}}}}},
		{"voice", mynah.Update{ID: 730009, Kind: "message", Chat: annaChat, Users: []mynah.User{anna},
			Message: &mynah.Message{Chat: annaChat, ID: 22, Sender: anna, Time: at(1763683700),
				Media: []mynah.Media{{Kind: mynah.MediaVoice, FileID: "AwACAgIAAxkBAAIC", FileUniqueID: "AgADvoice", MimeType: "audio/ogg", Duration: 7, Size: 28331}}}}},
		{"video", mynah.Update{ID: 730026, Kind: "message", Chat: annaChat, Users: []mynah.User{anna},
			Message: &mynah.Message{Chat: annaChat, ID: 28, Sender: anna, Time: at(1763684460), Text: "look at him go",
				Media: []mynah.Media{{Kind: mynah.MediaVideo, FileID: "BAACAgIAAxkBAAIC", FileUniqueID: "AgADvideo",
					MimeType: "video/quicktime", FileName: "heron.MOV", Width: 1920, Height: 1080, Duration: 42, Size: 20866662}}}}},
		{"video_note", mynah.Update{ID: 730027, Kind: "message", Chat: annaChat, Users: []mynah.User{anna},
			Message: &mynah.Message{Chat: annaChat, ID: 29, Sender: anna, Time: at(1763684520),
				Media: []mynah.Media{{Kind: mynah.MediaVideoNote, FileID: "DQACAgIAAxkBAAIC", FileUniqueID: "AgADnote",
					MimeType: "video/mp4", Width: 384, Height: 384, Duration: 12, Size: 912345}}}}},
		// A song's performer and title stand in for a description.
		{"audio", mynah.Update{ID: 730028, Kind: "message", Chat: annaChat, Users: []mynah.User{anna},
			Message: &mynah.Message{Chat: annaChat, ID: 30, Sender: anna, Time: at(1763684580),
				Media: []mynah.Media{{Kind: mynah.MediaAudio, FileID: "CQACAgIAAxkBAAIC", FileUniqueID: "AgADaudio",
					MimeType: "audio/mpeg", FileName: "Common Myna — Dawn Chorus", Duration: 187, Size: 3001234}}}}},
		// A generic MIME type gives way to what the name says.
		{"document", mynah.Update{ID: 730029, Kind: "message", Chat: annaChat, Users: []mynah.User{anna},
			Message: &mynah.Message{Chat: annaChat, ID: 31, Sender: anna, Time: at(1763684640), Text: "my notes",
				Media: []mynah.Media{{Kind: mynah.MediaDocument, FileID: "BQACAgIAAxkBAAIC", FileUniqueID: "AgADdoc",
					MimeType: "text/markdown", FileName: "NOTES.md", Size: 2048}}}}},
		{"document_pdf", mynah.Update{ID: 730030, Kind: "message", Chat: annaChat, Users: []mynah.User{anna},
			Message: &mynah.Message{Chat: annaChat, ID: 32, Sender: anna, Time: at(1763684700),
				Media: []mynah.Media{{Kind: mynah.MediaDocument, FileID: "BQACAgIAAxkBAAID", FileUniqueID: "AgADpdf",
					MimeType: "application/pdf", FileName: "report.pdf", Size: 182000}}}}},
		{"animation", mynah.Update{ID: 730018, Kind: "message", Chat: annaChat, Users: []mynah.User{anna},
			Message: &mynah.Message{Chat: annaChat, ID: 25, Sender: anna, Time: at(1763684200),
				Media: []mynah.Media{{Kind: mynah.MediaAnimation, FileID: "CgACAgQAAxkBAAIC", FileUniqueID: "AgADanim",
					MimeType: "video/mp4", FileName: "dance.mp4", Width: 320, Height: 240, Duration: 3, Size: 98304}}}}},
		{"location", mynah.Update{ID: 730021, Kind: "message", Chat: annaChat, Users: []mynah.User{anna},
			Message: &mynah.Message{Chat: annaChat, ID: 27, Sender: anna, Time: at(1763684360),
				Media: []mynah.Media{{Kind: mynah.MediaLocation, Description: "55.751244,37.618423"}}}}},
		// A topic's messages "reply" to its creation message: that is no reply.
		{"forum_topic", mynah.Update{ID: 730010, Kind: "message", Chat: lab, Users: []mynah.User{anna},
			Message: &mynah.Message{Chat: lab, ID: 812, ThreadID: 800, Sender: anna, Time: at(1763683760),
				Text: "@mynah_bot what did we try yesterday?", Entities: []mynah.Entity{{Type: "mention", Offset: 0, Length: 10}}}}},
		{"forum_topic_reply", mynah.Update{ID: 730011, Kind: "message", Chat: lab, Users: []mynah.User{anna, mynahBot},
			Message: &mynah.Message{Chat: lab, ID: 815, ThreadID: 800, Sender: anna, Time: at(1763683820), Text: "which ones?",
				ReplyTo: &mynah.ReplyRef{ID: 813, Sender: mynahBot, Text: "We tried seed mixes."}}}},
		{"edited_message", mynah.Update{ID: 730012, Kind: "edited_message", Edited: true, Chat: annaChat, Users: []mynah.User{annaFull},
			Message: &mynah.Message{Chat: annaChat, ID: 17, Sender: annaFull, Time: at(1763683200), Edited: at(1763683900),
				Text: "/start hello again", Entities: []mynah.Entity{{Type: "bot_command", Offset: 0, Length: 6}}}}},
		{"channel_post", mynah.Update{ID: 730013, Kind: "channel_post",
			Chat:  mynah.Chat{ID: -1009876543210, Type: mynah.ChatChannel, Title: "Bird News", Username: "birdnews"},
			Users: []mynah.User{birdNews},
			Message: &mynah.Message{Chat: mynah.Chat{ID: -1009876543210, Type: mynah.ChatChannel, Title: "Bird News", Username: "birdnews"},
				ID: 312, Sender: birdNews, Time: at(1763683960), Text: "Daily fact: mynahs are starlings."}}},
		{"anonymous_admin", mynah.Update{ID: 730014, Kind: "message", Chat: birdClubU,
			Users: []mynah.User{{ID: -1001234567890, FirstName: "Птичий клуб", Username: "birdclub"}},
			Message: &mynah.Message{Chat: birdClubU, ID: 2060, Time: at(1763684020), Text: "Rules: be kind to birds.",
				Sender: mynah.User{ID: -1001234567890, FirstName: "Птичий клуб", Username: "birdclub"}}}},
		{"new_members", mynah.Update{ID: 730019, Kind: "message", Chat: birdClub,
			Users: []mynah.User{anna, {ID: 9990001, FirstName: "Vera"}},
			Message: &mynah.Message{Chat: birdClub, ID: 2070, Sender: anna, Time: at(1763684260),
				Media: []mynah.Media{{Kind: "new_chat_members"}}}}},
		{"callback_query", mynah.Update{ID: 730020, Kind: "callback_query", Chat: annaChat,
			Users:    []mynah.User{anna},
			Callback: &mynah.Callback{ID: "4382bfdwdsb323b2d9", From: anna, Message: 26, Data: "seed_a"}}},
		{"callback_reply", mynah.Update{ID: 730023, Kind: "callback_query", Chat: birdClub,
			Users: []mynah.User{anna},
			Callback: &mynah.Callback{ID: "4382bfdwdsb323b2e0", From: anna, Message: 2081, Data: "m:p:5551234:2",
				ReplyTo: &mynah.ReplyRef{ID: 2080, Sender: anna, Text: "/memories"}}}},
		{"my_chat_member", mynah.Update{ID: 730022, Kind: "my_chat_member", Chat: birdClub, Users: []mynah.User{anna},
			Member: &mynah.MemberChange{By: anna, Old: "left", New: "member"}}},
		{"unknown_kind", mynah.Update{ID: 730015, Kind: "unknown"}},
		// Content newer than telego is kept as placeholders rather than an empty message.
		{"unknown_field", mynah.Update{ID: 730016, Kind: "message", Chat: annaChat, Users: []mynah.User{anna},
			Message: &mynah.Message{Chat: annaChat, ID: 23, Sender: anna, Time: at(1763684080),
				Media: []mynah.Media{{Kind: "hologram"}, {Kind: "some_new_flag"}}}}},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join("testdata", "updates", tt.fixture+".json"))
			if err != nil {
				t.Fatal(err)
			}
			got, err := decodeUpdate(raw)
			if err != nil {
				t.Fatalf("decodeUpdate: %v", err)
			}
			if diff := cmp.Diff(got, tt.want); diff != "" {
				t.Errorf("decodeUpdate (-got +want):\n%s", diff)
			}
		})
	}
}

// TestNormalizeTelegoOnly checks Normalize on its own: it sees only what telego decoded,
// so unknown fields are not there, but the message is.
func TestNormalizeTelegoOnly(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "updates", "unknown_field.json"))
	if err != nil {
		t.Fatal(err)
	}
	var tu telego.Update
	if err := json.Unmarshal(raw, &tu); err != nil {
		t.Fatal(err)
	}
	got := Normalize(tu)
	want := mynah.Update{ID: 730016, Kind: "message", Chat: annaChat, Users: []mynah.User{anna},
		Message: &mynah.Message{Chat: annaChat, ID: 23, Sender: anna, Time: at(1763684080)}}
	if diff := cmp.Diff(got, want); diff != "" {
		t.Errorf("Normalize (-got +want):\n%s", diff)
	}
}

// TestMemberStatus: the bot's statuses as my_chat_member reports them, and whether the
// change brought it into the chat.
func TestMemberStatus(t *testing.T) {
	for _, c := range []struct {
		old, new string
		joined   bool
	}{
		{`{"status":"left","user":{"id":1,"is_bot":true,"first_name":"B"}}`, `{"status":"member","user":{"id":1,"is_bot":true,"first_name":"B"}}`, true},
		{`{"status":"kicked","user":{"id":1,"is_bot":true,"first_name":"B"},"until_date":0}`, `{"status":"administrator","user":{"id":1,"is_bot":true,"first_name":"B"},"can_be_edited":false,"is_anonymous":false,"can_manage_chat":true,"can_delete_messages":false,"can_manage_video_chats":false,"can_restrict_members":false,"can_promote_members":false,"can_change_info":false,"can_invite_users":false,"can_post_stories":false,"can_edit_stories":false,"can_delete_stories":false}`, true},
		{`{"status":"member","user":{"id":1,"is_bot":true,"first_name":"B"}}`, `{"status":"left","user":{"id":1,"is_bot":true,"first_name":"B"}}`, false},
		{`{"status":"member","user":{"id":1,"is_bot":true,"first_name":"B"}}`, `{"status":"administrator","user":{"id":1,"is_bot":true,"first_name":"B"},"can_be_edited":false,"is_anonymous":false,"can_manage_chat":true,"can_delete_messages":false,"can_manage_video_chats":false,"can_restrict_members":false,"can_promote_members":false,"can_change_info":false,"can_invite_users":false,"can_post_stories":false,"can_edit_stories":false,"can_delete_stories":false}`, false},
		{`{"status":"left","user":{"id":1,"is_bot":true,"first_name":"B"}}`, `{"status":"restricted","user":{"id":1,"is_bot":true,"first_name":"B"},"is_member":false,"can_send_messages":false,"can_send_audios":false,"can_send_documents":false,"can_send_photos":false,"can_send_videos":false,"can_send_video_notes":false,"can_send_voice_notes":false,"can_send_polls":false,"can_send_other_messages":false,"can_add_web_page_previews":false,"can_change_info":false,"can_invite_users":false,"can_pin_messages":false,"can_manage_topics":false,"until_date":0}`, false},
	} {
		raw := `{"update_id":1,"my_chat_member":{"chat":{"id":-5,"type":"group","title":"G"},"from":{"id":2,"is_bot":false,"first_name":"A"},"date":1,` +
			`"old_chat_member":` + c.old + `,"new_chat_member":` + c.new + `}}`
		u, err := decodeUpdate([]byte(raw))
		if err != nil {
			t.Fatal(err)
		}
		if u.Member == nil || u.Member.Joined() != c.joined || u.Member.By.ID != 2 {
			t.Errorf("%s → %s: %+v, want joined %t", c.old, c.new, u.Member, c.joined)
		}
	}
}

func TestDecodeUpdateMalformed(t *testing.T) {
	tests := []struct {
		name   string
		raw    string
		wantID int64
	}{
		{"message is not an object", `{"update_id": 41, "message": "oops"}`, 41},
		{"unknown forward origin", `{"update_id": 42, "message": {"message_id": 1, "date": 1, "chat": {"id": 1, "type": "private"}, "forward_origin": {"type": "wormhole", "date": 1}}}`, 42},
		{"not JSON", `{"update_id": 43, `, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decodeUpdate([]byte(tt.raw))
			if err == nil {
				t.Fatalf("decodeUpdate(%s) = %+v, want an error", tt.raw, got)
			}
			if got.ID != tt.wantID {
				t.Errorf("decodeUpdate(%s).ID = %d, want %d", tt.raw, got.ID, tt.wantID)
			}
		})
	}
}

// TestKindsNotActedOn: real-shaped updates of every kind mynah does not act on decode
// without error, name their kind (ingest logs it and confirms the update) and carry no
// message, so nothing is stored or answered for them (issue 15).
func TestKindsNotActedOn(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "updates", "kind_*.json"))
	if err != nil || len(files) < 8 {
		t.Fatalf("fixtures: %v, %v", files, err)
	}
	for _, f := range files {
		kind := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), "kind_"), ".json")
		t.Run(kind, func(t *testing.T) {
			raw, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			u, err := decodeUpdate(raw)
			if err != nil {
				t.Fatalf("decodeUpdate: %v", err)
			}
			if u.ID == 0 || u.Kind != kind || u.Message != nil || u.Callback != nil {
				t.Errorf("decoded %+v, want update_id, kind %q and no message", u, kind)
			}
		})
	}
}
