package prompt

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mynah-ai/mynah"
)

func TestFreshness(t *testing.T) {
	kyiv, err := time.LoadLocation("Europe/Kyiv")
	if err != nil {
		t.Skip("no time zone data")
	}
	at := func(day, hour, min int) time.Time { return time.Date(2026, 11, day, hour, min, 0, 0, kyiv) }
	history := []mynah.Message{
		{ID: 1, Time: at(20, 22, 0)},
		{ID: 2, Time: at(20, 22, 5)},
		{ID: 3, Time: at(21, 3, 50)}, // 5h45m later
		{ID: 4, Time: at(21, 4, 10)},
		{ID: 5, Time: at(21, 9, 0)}, // 4h50m later
	}
	ids := func(ms []mynah.Message) (out []mynah.MessageID) {
		for _, m := range ms {
			out = append(out, m.ID)
		}
		return out
	}
	now := at(21, 9, 1)
	tests := []struct {
		name   string
		f      Freshness
		target mynah.MessageID
		want   []mynah.MessageID
	}{
		{"never", Freshness{Kind: "never"}, 5, []mynah.MessageID{1, 2, 3, 4, 5}},
		{"idle 4h: the last gap starts the session", Freshness{Kind: "idle", Idle: 4 * time.Hour}, 5, []mynah.MessageID{5}},
		{"idle 5h", Freshness{Kind: "idle", Idle: 5 * time.Hour}, 5, []mynah.MessageID{3, 4, 5}},
		{"idle 6h: no gap that long", Freshness{Kind: "idle", Idle: 6 * time.Hour}, 5, []mynah.MessageID{1, 2, 3, 4, 5}},
		{"daily at 4 local time", Freshness{Kind: "daily", Hour: 4}, 5, []mynah.MessageID{4, 5}},
		{"daily: the target always stays", Freshness{Kind: "daily", Hour: 4}, 3, []mynah.MessageID{3, 4, 5}},
		{"daily before today's hour counts from yesterday's", Freshness{Kind: "daily", Hour: 23}, 5, []mynah.MessageID{3, 4, 5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := append([]mynah.Message(nil), history...)
			got := ids(tt.f.fresh(in, tt.target, now, kyiv))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(ids(history), ids(in)); diff != "" {
				t.Errorf("the history passed in was modified")
			}
		})
	}
}
