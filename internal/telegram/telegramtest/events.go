package telegramtest

import (
	"context"
	"slices"
)

// EventKind says what a bot did.
type EventKind int

// Event kinds.
const (
	EventSent     EventKind = iota + 1 // a message was sent; Message is set
	EventEdited                        // a message was edited; Message is set
	EventDeleted                       // a message was deleted; Message is set
	EventAction                        // a chat action was sent; Action is set
	EventDraft                         // a draft was updated; Draft is set
	EventReaction                      // a reaction was set; Reaction is set
)

// Event is something a bot did, as delivered by Subscribe.
type Event struct {
	Kind     EventKind
	Message  SentMessage
	Action   Action
	Draft    Draft
	Reaction Reaction
}

// subscriber buffers events for one Subscribe channel; guarded by Server.mu.
type subscriber struct {
	queue  []Event
	signal chan struct{} // capacity 1
}

// emit queues ev for every subscriber. The caller holds s.mu.
func (s *Server) emit(ev Event) {
	for _, sub := range s.subs {
		sub.queue = append(sub.queue, ev)
		select {
		case sub.signal <- struct{}{}:
		default:
		}
	}
	s.changed.Broadcast()
}

// Subscribe returns a channel of everything bots do from now on, in order
// and without loss. The channel is closed when ctx is done or the server is
// closed; the consumer must keep reading until then.
func (s *Server) Subscribe(ctx context.Context) <-chan Event {
	out := make(chan Event)
	sub := &subscriber{signal: make(chan struct{}, 1)}
	s.mu.Lock()
	if s.isClosed() {
		s.mu.Unlock()
		close(out)
		return out
	}
	s.subs = append(s.subs, sub)
	s.wg.Add(1)
	s.mu.Unlock()
	go func() {
		defer s.wg.Done()
		defer close(out)
		defer func() {
			s.mu.Lock()
			s.subs = slices.DeleteFunc(s.subs, func(x *subscriber) bool { return x == sub })
			s.mu.Unlock()
		}()
		for {
			s.mu.Lock()
			batch := sub.queue
			sub.queue = nil
			s.mu.Unlock()
			for _, ev := range batch {
				select {
				case out <- ev:
				case <-ctx.Done():
					return
				case <-s.closed:
					return
				}
			}
			select {
			case <-sub.signal:
			case <-ctx.Done():
				return
			case <-s.closed:
				return
			}
		}
	}()
	return out
}
