package telegram

import "testing"

// BenchmarkDecodeUpdate decodes a private text message as getUpdates returns it: what
// intake pays per message before the store.
func BenchmarkDecodeUpdate(b *testing.B) {
	raw := []byte(`{"update_id":10001,"message":{"message_id":42,"from":{"id":50001,"is_bot":false,"first_name":"User1","language_code":"en"},"chat":{"id":50001,"first_name":"User1","type":"private"},"date":1764158400,"text":"chat 1 message 3"}}`)
	buf := make([]byte, len(raw))
	for b.Loop() {
		copy(buf, raw)
		if _, err := decodeUpdate(buf); err != nil {
			b.Fatal(err)
		}
	}
}
