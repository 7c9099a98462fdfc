package telegramtest

import (
	"errors"
	"fmt"
)

// Error is a Bot API error as the official server reports it. Code is both the
// HTTP status and the envelope's error_code; Description already carries the
// prefix Telegram adds ("Bad Request: ", "Forbidden: ", ...).
type Error struct {
	Code        int
	Description string
	// RetryAfter is sent as parameters.retry_after and as the Retry-After
	// header when non-zero.
	RetryAfter int
	// MigrateToChatID is sent as parameters.migrate_to_chat_id when non-zero.
	MigrateToChatID int64
}

func (e *Error) Error() string {
	return fmt.Sprintf("telegram %d: %s", e.Code, e.Description)
}

// Descriptions of the errors the emulator produces, verbatim from the
// official server (TELEGRAM.md §2.2) without their "Bad Request: " prefix.
const (
	msgTextEmpty          = "message text is empty"
	msgTextMustBeNonEmpty = "text must be non-empty"
	msgTextTooLong        = "message is too long"
	msgCaptionTooLong     = "message caption is too long"
	msgRawTextTooLong     = "text is too long"
	msgBadParseMode       = "unsupported parse_mode"
	msgChatIDEmpty        = "chat_id is empty"
	msgChatNotFound       = "chat not found"
	msgMessageIDMissing   = "message identifier is not specified"
	msgEditNotFound       = "message to edit not found"
	msgCantEdit           = "message can't be edited"
	msgReactNotFound      = "message to react not found"
	msgDeleteNotFound     = "message to delete not found"
	msgReplyNotFound      = "message to be replied not found"
	msgNotModified        = "message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message"
	msgBlocked            = "bot was blocked by the user"
	msgCantInitiate       = "bot can't initiate conversation with a user"
	msgBotToBot           = "The bot can't send messages to the bot"
	msgBadAction          = "wrong parameter action in request"
	msgBadReactionType    = "invalid reaction type specified"
	msgReactionInvalid    = "REACTION_INVALID"
	msgReactionsTooMany   = "REACTIONS_TOO_MANY"
	msgInvalidFileID      = "invalid file_id"
	msgWrongFileID        = "wrong file identifier/HTTP URL specified"
	msgBadWebhookURL      = "invalid webhook URL specified"
	msgWebhookHTTPS       = "bad webhook: An HTTPS URL must be provided for webhook"
	msgWebhookPorts       = "bad webhook: Webhook can be set up only on ports 80, 88, 443 or 8443"
	msgSecretTooLong      = "secret token is too long"
	msgSecretBadChars     = "secret token contains unallowed characters"

	msgConflictWebhook    = "can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first"
	msgConflictPoll       = "terminated by other getUpdates request; make sure that only one bot instance is running"
	msgConflictSetWebhook = "terminated by setWebhook request"

	// The following have no verified wording in TELEGRAM.md; they follow
	// the server's style (MTProto codes pass through upper-case).
	msgDraftIDZero       = "draft_id must be non-zero"
	msgDraftNotPrivate   = "TEXTDRAFT_PEER_INVALID"
	msgTooManyCommands   = "BOT_COMMANDS_TOO_MUCH"
	msgBadCommand        = "BOT_COMMAND_INVALID"
	msgBadCommandDesc    = "BOT_COMMAND_DESCRIPTION_INVALID"
	msgInlineUnsupported = "MESSAGE_ID_INVALID"
)

func badRequest(msg string) *Error {
	return &Error{Code: 400, Description: "Bad Request: " + msg}
}

func forbidden(msg string) *Error {
	return &Error{Code: 403, Description: "Forbidden: " + msg}
}

func conflict(msg string) *Error {
	return &Error{Code: 409, Description: "Conflict: " + msg}
}

func parseEntitiesError(detail string) *Error {
	return badRequest("can't parse entities: " + detail)
}

func errNotFound() *Error       { return &Error{Code: 404, Description: "Not Found"} }
func errMethodNotFound() *Error { return &Error{Code: 404, Description: "Not Found: method not found"} }
func errInvalidToken() *Error {
	return &Error{Code: 401, Description: "Unauthorized: invalid token specified"}
}
func errUnauthorized() *Error { return &Error{Code: 401, Description: "Unauthorized"} }

// ErrClosed is returned by the Wait methods when the server is closed while
// they wait.
var ErrClosed = errors.New("telegramtest: server closed")
