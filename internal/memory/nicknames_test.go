package memory_test

import (
	"slices"
	"testing"
	"time"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/memory"
)

// TestNicknames: in a family group where Дмитро's profile says «Дмитро», everyone calls
// him «Діма» and he writes most of the messages, a question about what «Діма» said finds
// what Дмитро said before what the others said in the same words; so does a question
// naming him in another case («у Дмитра»). Without the nicknames feature the first does
// not; without the speaker feature, the second does not.
func TestNicknames(t *testing.T) {
	db := openStore(t)
	chat := mynah.Chat{ID: -100600, Type: mynah.ChatSupergroup, Title: "родина"}
	dmytro := mynah.UserNamed(1, "Дмитро")
	oksana := mynah.UserNamed(2, "Оксана")
	taras := mynah.UserNamed(3, "Тарас")
	t0 := time.Date(2024, 2, 27, 18, 0, 0, 0, time.UTC)
	var msgs []mynah.Message
	for i, m := range []struct {
		who  mynah.User
		text string
	}{
		{dmytro, "На роботі оголосили, що з квітня ходимо в офіс три дні на тиждень, година дороги в один бік"},
		{oksana, "Діма, а може попросиш лишити тобі віддалену роботу?"},
		{taras, "У нас в офіс ходять усі, без варіантів"},
		{oksana, "А в мене офіс взагалі поруч, п'ять хвилин пішки"},
		{taras, "Офіс новий, кава смачна"},
		{oksana, "Офіс закрили на ремонт до понеділка"},
	} {
		msgs = append(msgs, mynah.Message{ID: mynah.MessageID(i + 1), Time: t0.Add(time.Duration(i) * time.Hour), Sender: m.who, Text: m.text})
	}
	filler := []string{"Всім привіт", "Малий спить, нарешті", "Хто на вихідних до батьків?", "Я за", "Купив нові шини",
		"Погода сьогодні ніяка", "Добре, домовились", "Скину фото ввечері", "Дякую!", "Тато дзвонив, все добре",
		"Хто забере посилку?", "Мама спекла пиріг", "Завтра дощ обіцяють", "Ок", "Гарного вечора всім"}
	for i := range 60 { // Дмитро writes half of the chat: his name is no rare word
		who := []mynah.User{dmytro, oksana, dmytro, taras}[i%4]
		msgs = append(msgs, mynah.Message{ID: mynah.MessageID(100 + i), Time: t0.Add(time.Duration(10+i) * time.Hour), Sender: who, Text: filler[i%len(filler)]})
	}
	if _, err := db.ImportMessages(t.Context(), "a", chat, msgs); err != nil {
		t.Fatal(err)
	}
	first := func(opts memory.Options, text string) mynah.MessageID {
		res, err := memory.NewSearcher(db, opts, nil).Search(t.Context(), memory.Query{Agent: "a", Chat: chat.ID, Text: text, K: 3, Now: t0.AddDate(0, 1, 0)})
		if err != nil {
			t.Fatal(err)
		}
		if len(res) == 0 {
			return 0
		}
		return res[0].MessageID
	}
	off := func(feature string) memory.Options {
		o, err := memory.Ablate(memory.DefaultOptions(), feature)
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	for _, c := range []struct{ text, feature string }{
		{"Що Діма казав про офіс?", "nicknames"},
		{"Що там у Дмитра з офісом?", "speaker"},
	} {
		if got := first(memory.DefaultOptions(), c.text); got != 1 {
			t.Errorf("%q: first %d, want 1, what Дмитро said", c.text, got)
		}
		if got := first(off(c.feature), c.text); got == 1 {
			t.Errorf("%q without %s: first is still 1; the test does not show what it does", c.text, c.feature)
		}
	}
	if !slices.ContainsFunc(memory.Features(), func(f memory.Feature) bool { return f.Name == "nicknames" }) {
		t.Error("nicknames is not a feature bench memory can turn off")
	}
}
