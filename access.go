package mynah

import (
	"context"
	"errors"
	"time"
)

// ErrPairingsFull is returned by Pairings.RequestPairing when the agent already has as many
// pending codes as allowed: the user is told to try again later.
var ErrPairingsFull = errors.New("too many pending pairing requests")

// Pairing is a one-time code that a user who is not on an agent's allowlist received in a
// private chat. An operator approves it (`mynah pair approve CODE`); from then on the user
// may talk to the agent.
type Pairing struct {
	Agent    string
	Code     string
	User     User
	Created  time.Time
	Expires  time.Time
	Approved time.Time // zero while pending
}

// Pairings persists pairing codes and the users approved through them. Codes are unique
// across agents, so a code alone identifies its agent.
type Pairings interface {
	// RequestPairing returns user's pending code for agent when one has not expired at now
	// (created false). Otherwise, when agent has fewer than maxPending unexpired pending
	// codes, it stores code for user, created at now and expiring after ttl, and returns it
	// (created true); otherwise it returns an error wrapping ErrPairingsFull. A code that
	// exists already (of any agent, any time) is an error: the caller draws another.
	RequestPairing(ctx context.Context, agent string, user User, code string, now time.Time, ttl time.Duration, maxPending int) (p Pairing, created bool, err error)
	// ApprovePairing approves the pending code (matched exactly; callers normalise case),
	// if it has not expired at now, and records its user as approved for its agent, all in
	// one transaction. When welcome is not empty it also queues a static turn sending
	// welcome to the user's private chat. An unknown, expired or already approved code is
	// an error wrapping ErrNotFound.
	ApprovePairing(ctx context.Context, code string, now time.Time, welcome string) (Pairing, error)
	// Approved reports whether user was approved for agent through pairing.
	Approved(ctx context.Context, agent string, user UserID) (bool, error)
	// ListPairings returns agent's codes that are pending and unexpired at now, and the
	// approved ones, oldest first; agent "" lists every agent's.
	ListPairings(ctx context.Context, agent string, now time.Time) ([]Pairing, error)
}

// ChatMode is what an agent's admins set for one chat at runtime (/stop, /activation): it
// overrides the configured trigger and survives restarts.
type ChatMode struct {
	Agent   string
	Chat    ChatID
	Trigger string // mention, reply, name or always; "" keeps the configured trigger
	Stopped bool   // the agent answers nothing but admin commands in this chat
	Updated time.Time
}

// ChatModes persists chat modes.
type ChatModes interface {
	// ChatMode returns the chat's mode; a chat never set has a zero mode (with Agent and
	// Chat filled in), not an error.
	ChatMode(ctx context.Context, agent string, chat ChatID) (ChatMode, error)
	// SetChatMode stores m, replacing the chat's previous mode; a zero Updated means now.
	SetChatMode(ctx context.Context, m ChatMode) error
}

// GroupApproval is what an agent knows about a group it may answer in only once the group
// is approved (the default when no groups are configured): who added its bot there, when
// the group was approved, and when the owner was told that it waits.
type GroupApproval struct {
	Agent    string
	Chat     Chat      // the id, and the title as last recorded
	AddedBy  User      // who last added the bot to the group (my_chat_member); zero when unknown
	Added    time.Time // zero when unknown
	Approved time.Time // zero while not approved
	// ApprovedBy is the admin whose /activation approved the group; 0 when the operator
	// approved it (`mynah pair approve-group`).
	ApprovedBy UserID
	// Noticed is when the owner was told that the group waits for approval; zero: not yet.
	Noticed time.Time
}

// GroupApprovals persists who added an agent's bot to which group and which groups are
// approved. Approvals are never withdrawn by mynah.
type GroupApprovals interface {
	// GroupApproval returns what is known about chat; a group never recorded has a zero
	// record with Agent and Chat.ID filled in, not an error.
	GroupApproval(ctx context.Context, agent string, chat ChatID) (GroupApproval, error)
	// GroupAdded records that by added agent's bot to chat at when, replacing an earlier
	// adder and keeping an approval. The chat's title is updated.
	GroupAdded(ctx context.Context, agent string, chat Chat, by User, when time.Time) error
	// ApproveGroup approves chat for agent at now; by is the approving admin (0: the
	// operator). A group approved already keeps its first approval; a group never
	// recorded is recorded. It returns the record as stored.
	ApproveGroup(ctx context.Context, agent string, chat ChatID, by UserID, now time.Time) (GroupApproval, error)
	// NoticeGroup records that the owner was told at now that chat waits for approval,
	// recording the chat (and its title) if needed. It reports true only the first time
	// for the chat, so the owner is told once however often it is called.
	NoticeGroup(ctx context.Context, agent string, chat Chat, now time.Time) (first bool, err error)
	// ListGroupApprovals returns agent's recorded groups, agent "" every agent's, ordered
	// by agent and then by when they were first recorded.
	ListGroupApprovals(ctx context.Context, agent string) ([]GroupApproval, error)
}
