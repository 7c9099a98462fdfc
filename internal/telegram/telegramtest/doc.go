// Package telegramtest emulates the Telegram Bot API for tests and for
// in-process use (mynah play).
//
// A Server speaks the official server's wire protocol: /bot<token>/<method>
// with parameters from the query string, form, JSON or multipart bodies, the
// {"ok":…} envelope with the HTTP status equal to error_code, and the exact
// error descriptions of the official server. Every request is checked
// against the embedded Bot API 10.1 specification (botapi.json, MIT, see
// botapi.LICENSE); violations are reported through Options.OnViolation, and
// Start turns them into test failures. With Options.SelfCheck the emulator
// also checks its own results and updates against the specification.
//
// Tests inject user activity (SendPrivate, SendGroup, EditMessage,
// PressButton, Inject), read what bots did (Sent, WaitSent, Actions, Drafts,
// Reactions, Commands, Calls, CallbackAnswers, SentMessage.Buttons,
// Subscribe) and script failures (FailNext, Block).
//
// Files are real bytes: AddFile and AddFileSized store content that getFile
// and /file/bot<token>/<file_path> serve (FileDownloads counts downloads),
// the With… options attach it to injected messages (WithPhoto, WithSticker,
// WithVoice, WithVideo, WithVideoNote, WithAnimation, WithAudio,
// WithDocument; WithMediaGroup makes albums), and AddStickerSetFiles makes
// sticker sets of real stickers for getStickerSet.
//
// Documented deviations from the real service: webhooks may use plain http
// on loopback hosts and any port there (like the server's local mode) and are
// delivered one update at a time whatever max_connections says; file URLs
// given to sendPhoto and friends are not fetched; Markdown and MarkdownV2
// texts are not parsed (they are kept as sent); inline messages, business
// connections and flood limits are not emulated (use FailNext for 429s);
// callback queries never expire (the official server refuses late answers);
// photos are not re-encoded as JPEG (a photo's sizes are the stored image
// and nearest-neighbour PNG copies of it) and stickers always say 512×512.
// Spec methods without an emulation succeed with true when they return only
// Boolean, and fail with a violation otherwise.
package telegramtest
