package mynah

import "context"

// SearchQuery asks a backend for keyword candidates from an agent's history.
type SearchQuery struct {
	Agent  string
	Chat   ChatID // 0: every chat of the agent
	Sender UserID // 0: anyone
	// Terms are OR-ed words, already lower-cased and stripped of stop words by the caller;
	// the backend matches each as a word (with its own stemming) and escapes its syntax.
	Terms []string
	// ContextWeight weighs a match in who said a message and when (the sender's name,
	// month and year) against a match in what was said (weight 1); 0 ignores it.
	ContextWeight float64
	// PreviousWeight weighs a match in what a message answers (the text it replies to, or
	// the message before it); 0 ignores it.
	PreviousWeight float64
	Limit          int
}

// SearchHit is one keyword candidate: a stored message and its BM25 score.
type SearchHit struct {
	Message Message
	// Score is BM25 as the backend computes it, > 0, higher is better. Scores compare
	// within one answer only; callers normalise them before mixing them with others.
	Score float64
}

// HistorySearch is the history index: keyword search over every stored message.
type HistorySearch interface {
	// SearchHistory returns up to q.Limit messages matching any of q.Terms, best first.
	// Its cost grows with the matches in the scope (agent, or agent and chat), not with
	// the size of the database. No terms match nothing.
	SearchHistory(ctx context.Context, q SearchQuery) ([]SearchHit, error)
	// Around returns the message id of agent's chat with up to before messages preceding it
	// and up to after following it, in chronological order; without that message, the
	// neighbours of where it would be.
	Around(ctx context.Context, agent string, chat ChatID, id MessageID, before, after int) ([]Message, error)
}
