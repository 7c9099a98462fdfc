package lane

import (
	"cmp"
	"slices"

	"github.com/mynah-ai/mynah"
)

// queue is the runner's view of its pending work: the unfinished turns and undelivered
// parts of each lane, in id order. The store holds the same work; the queue is read from
// it at start (and when told to), told of each turn as it is queued, and kept up to date
// by the results of the lanes. Only Run's goroutine touches it.
type queue struct {
	lanes map[laneKey]*work
	// finished remembers the turns finished lately, so that news of one that arrives
	// after its lane already answered it (Queued racing a scan) cannot queue it again.
	finished, finishedOld map[int64]bool
	// full is set when the last scan read as many turns as it may: more wait in the
	// store, read as the queue drains.
	full bool
}

// work is one lane's pending work.
type work struct {
	turns []mynah.Turn
	parts []mynah.OutPart
}

// finishedKept bounds the finished turns remembered, in two generations.
const finishedKept = 4096

func newQueue() *queue {
	return &queue{lanes: map[laneKey]*work{}, finished: map[int64]bool{}}
}

func (q *queue) lane(k laneKey) *work {
	w := q.lanes[k]
	if w == nil {
		w = &work{}
		q.lanes[k] = w
	}
	return w
}

// addTurn queues t unless it is queued already or was finished.
func (q *queue) addTurn(t mynah.Turn) {
	if q.finished[t.ID] || q.finishedOld[t.ID] {
		return
	}
	w := q.lane(laneKey{t.Chat, t.ThreadID})
	i, found := slices.BinarySearchFunc(w.turns, t.ID, func(a mynah.Turn, id int64) int { return cmp.Compare(a.ID, id) })
	if !found {
		w.turns = slices.Insert(w.turns, i, t)
	}
}

// addPart queues p unless it is queued already.
func (q *queue) addPart(p mynah.OutPart) {
	w := q.lane(laneKey{p.Chat, p.ThreadID})
	i, found := slices.BinarySearchFunc(w.parts, p.ID, func(a mynah.OutPart, id int64) int { return cmp.Compare(a.ID, id) })
	if !found {
		w.parts = slices.Insert(w.parts, i, p)
	}
}

// apply takes in what a lane did: the turns it finished and the parts it settled leave
// the queue, the parts it enqueued and left pending join it. A lane whose chat another
// instance took over leaves the queue whole.
func (q *queue) apply(res laneResult) {
	w := q.lanes[res.key]
	if w == nil {
		w = q.lane(res.key)
	}
	for _, id := range res.finished {
		if len(q.finished) >= finishedKept {
			q.finishedOld, q.finished = q.finished, make(map[int64]bool, finishedKept)
		}
		q.finished[id] = true
	}
	if len(res.finished) > 0 {
		w.turns = slices.DeleteFunc(w.turns, func(t mynah.Turn) bool { return slices.Contains(res.finished, t.ID) })
	}
	if len(res.settled) > 0 {
		w.parts = slices.DeleteFunc(w.parts, func(p mynah.OutPart) bool { return slices.Contains(res.settled, p.ID) })
	}
	for _, p := range res.enqueued {
		if !slices.Contains(res.settled, p.ID) {
			q.addPart(p)
		}
	}
	if res.lost || len(w.turns) == 0 && len(w.parts) == 0 {
		delete(q.lanes, res.key)
	}
}

// order returns the lanes with work (with parts, when partsOnly) that skip, asked of
// each of them, does not exclude, the lanes with parts to deliver first, then by their oldest turn: the chat
// that has waited longest goes first, and a busy group gets one lane like everyone else.
func (q *queue) order(partsOnly bool, skip func(laneKey) bool) []laneKey {
	type rank struct {
		key      laneKey
		noParts  bool
		oldestID int64
	}
	var ranks []rank // few: most lanes are running or idle on a busy runner
	for k, w := range q.lanes {
		switch {
		case len(w.parts) == 0 && (partsOnly || len(w.turns) == 0), skip(k):
		case len(w.parts) > 0:
			ranks = append(ranks, rank{k, false, w.parts[0].ID})
		default:
			ranks = append(ranks, rank{k, true, w.turns[0].ID})
		}
	}
	slices.SortFunc(ranks, func(a, b rank) int {
		if a.noParts != b.noParts {
			if a.noParts {
				return 1
			}
			return -1
		}
		return cmp.Compare(a.oldestID, b.oldestID)
	})
	keys := make([]laneKey, len(ranks))
	for i, r := range ranks {
		keys[i] = r.key
	}
	return keys
}
