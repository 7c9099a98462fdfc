package memory

import (
	"testing"
	"time"
)

func TestParseTime(t *testing.T) {
	kyiv, err := time.LoadLocation("Europe/Kyiv")
	if err != nil {
		t.Skip(err)
	}
	// Wednesday 15 May 2024, 10:30 in Kyiv
	now := time.Date(2024, 5, 15, 10, 30, 0, 0, kyiv)
	day := func(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, kyiv) }
	for _, c := range []struct {
		query      string
		from, to   time.Time
		text       string
		when, rcnt bool
	}{
		{query: "what did we cook yesterday", from: day(2024, 5, 14), to: day(2024, 5, 15), text: "what did we cook"},
		{query: "what did we cook today?", from: day(2024, 5, 15), to: day(2024, 5, 16), text: "what did we cook ?"},
		{query: "the film we saw last week", from: day(2024, 5, 6), to: day(2024, 5, 13), text: "the film we saw"},
		{query: "plans this week", from: day(2024, 5, 13), to: day(2024, 5, 20), text: "plans"},
		{query: "what did Ann say last month", from: day(2024, 4, 1), to: day(2024, 5, 1), text: "what did Ann say"},
		{query: "trips last year", from: day(2023, 1, 1), to: day(2024, 1, 1), text: "trips"},
		{query: "what happened last weekend", from: day(2024, 5, 11), to: day(2024, 5, 13), text: "what happened"},
		{query: "the hike last Sunday", from: day(2024, 5, 12), to: day(2024, 5, 13), text: "the hike"},
		{query: "the call on Wednesday", from: day(2024, 5, 8), to: day(2024, 5, 9), text: "the call"},
		{query: "books I read in March", from: day(2024, 3, 1), to: day(2024, 4, 1), text: "books I read"},
		{query: "books I read in December", from: day(2023, 12, 1), to: day(2024, 1, 1), text: "books I read"},
		{query: "Did Andrew have a dog during March 2023?", from: day(2023, 3, 1), to: day(2023, 4, 1), text: "Did Andrew have a dog ?"},
		{query: "what did I buy on 8 May", from: day(2024, 5, 8), to: day(2024, 5, 9), text: "what did I buy"},
		{query: "the party on May 20th, 2023", from: day(2023, 5, 20), to: day(2023, 5, 21), text: "the party"},
		{query: "meeting 2023-11-02 notes", from: day(2023, 11, 2), to: day(2023, 11, 3), text: "meeting notes"},
		{query: "where did we go in 2022", from: day(2022, 1, 1), to: day(2023, 1, 1), text: "where did we go"},
		{query: "what I said 3 weeks ago", from: day(2024, 4, 20), to: day(2024, 4, 28), text: "what I said"},
		{query: "the dentist a couple of days ago", from: day(2024, 5, 12), to: day(2024, 5, 15), text: "the dentist"},
		{query: "what did we do two weekends ago?", from: day(2024, 5, 4), to: day(2024, 5, 6), text: "what did we do ?"},
		{query: "the hike 2 weekends ago", from: day(2024, 5, 4), to: day(2024, 5, 6), text: "the hike"},
		{query: "the market a few weekends ago", from: day(2024, 4, 20), to: day(2024, 5, 6), text: "the market"},
		{query: "where was I the week before last", from: day(2024, 4, 29), to: day(2024, 5, 6), text: "where was I"},
		{query: "the party the weekend before last", from: day(2024, 5, 4), to: day(2024, 5, 6), text: "the party"},
		{query: "bills of the month before last", from: day(2024, 3, 1), to: day(2024, 4, 1), text: "bills"},
		{query: "what we did weekend before last", from: day(2024, 5, 4), to: day(2024, 5, 6), text: "what we did"},
		{query: "what did we do last summer", from: day(2023, 6, 1), to: day(2023, 9, 1), text: "what did we do summer"},
		{query: "plans this summer", from: day(2024, 6, 1), to: day(2024, 9, 1), text: "plans summer"},
		{query: "plans for the summer", text: "plans for the summer"},
		{query: "skiing last winter", from: day(2023, 12, 1), to: day(2024, 3, 1), text: "skiing winter"},
		{query: "the trip in the summer of 2022", from: day(2022, 6, 1), to: day(2022, 9, 1), text: "the trip summer"},
		{query: "where did we go during the autumn?", from: day(2023, 9, 1), to: day(2023, 12, 1), text: "where did we go autumn ?"},
		{query: "the colours of autumn", text: "the colours of autumn"},
		{query: "the trip at the end of the summer", from: day(2023, 8, 1), to: day(2023, 9, 1), text: "the trip summer"},
		{query: "hiking in early summer", from: day(2023, 6, 1), to: day(2023, 7, 1), text: "hiking summer"},
		{query: "what will we plant next spring", from: day(2025, 3, 1), to: day(2025, 6, 1), text: "what will we plant spring"},
		{query: "how did she feel after the fall?", text: "how did she feel after the fall?"},
		{query: "I love summer", text: "I love summer"},
		{query: "what happened in early March", from: day(2024, 3, 1), to: day(2024, 3, 11), text: "what happened"},
		{query: "the concert in mid-April", from: day(2024, 4, 11), to: day(2024, 4, 21), text: "the concert"},
		{query: "bills at the end of last month", from: day(2024, 4, 21), to: day(2024, 5, 1), text: "bills"},
		{query: "we moved in late 2023", from: day(2023, 9, 1), to: day(2024, 1, 1), text: "we moved"},
		{query: "what happened at the end?", text: "what happened at the end?"},
		{query: "what did we do over the weekend?", from: day(2024, 5, 11), to: day(2024, 5, 13), text: "what did we do ?"},
		{query: "what will we do over the weekend?", from: day(2024, 5, 18), to: day(2024, 5, 20), text: "what will we do ?"},
		{query: "the film this past weekend", from: day(2024, 5, 11), to: day(2024, 5, 13), text: "the film"},
		{query: "who did I meet the other day", from: day(2024, 5, 7), to: day(2024, 5, 14), text: "who did I meet"},
		{query: "where did we go the first weekend of April", from: day(2024, 4, 6), to: day(2024, 4, 8), text: "where did we go"},
		{query: "the last week of April", from: day(2024, 4, 24), to: day(2024, 5, 1), text: ""},
		{query: "what did I do last weekend before 10 April", from: day(2024, 4, 6), to: day(2024, 4, 8), text: "what did I do"},
		{query: "the dog over the weekend after 10 April", from: day(2024, 4, 13), to: day(2024, 4, 15), text: "the dog"},
		{query: "what did I buy a fortnight ago", from: day(2024, 4, 27), to: day(2024, 5, 5), text: "what did I buy"},
		{query: "what did I buy in the past fortnight", from: day(2024, 5, 1), to: day(2024, 5, 16), text: "what did I buy"},
		{query: "runs last fortnight", from: day(2024, 5, 1), to: day(2024, 5, 16), text: "runs"},
		// a hedged distance back is vaguer: "or so", "or two", "2 or 3"
		{query: "who called a month or so ago", from: day(2024, 3, 16), to: day(2024, 5, 16), text: "who called"},
		{query: "the hike a week or two ago", from: day(2024, 4, 27), to: day(2024, 5, 12), text: "the hike"},
		{query: "the tent 2 or 3 weeks ago", from: day(2024, 4, 20), to: day(2024, 5, 5), text: "the tent"},
		{query: "which one or two ago", text: "which one or two ago"},
		{query: "runs over the past 10 days", from: day(2024, 5, 5), to: day(2024, 5, 16), text: "runs"},
		{query: "what's on tomorrow", from: day(2024, 5, 16), to: day(2024, 5, 17), text: "what's"},
		{query: "the day after tomorrow", from: day(2024, 5, 17), to: day(2024, 5, 18), text: ""},
		// a verb's "up to" is no bound
		{query: "what were most of us up to last weekend?", from: day(2024, 5, 11), to: day(2024, 5, 13), text: "what were most of us up to ?"},
		{query: "what did we get up to three weekends ago", from: day(2024, 4, 27), to: day(2024, 4, 29), text: "what did we get up to"},
		{query: "what have the vet bills added up to this year", from: day(2024, 1, 1), to: day(2025, 1, 1), text: "what have the vet bills added up to"},
		{query: "what did I spend up to March", to: day(2024, 4, 1), text: "what did I spend"},
		{query: "plans next week", from: day(2024, 5, 20), to: day(2024, 5, 27), text: "plans"},
		{query: "the trip next month", from: day(2024, 6, 1), to: day(2024, 7, 1), text: "the trip"},
		{query: "the party next Friday", from: day(2024, 5, 24), to: day(2024, 5, 25), text: "the party"},
		{query: "the call next Monday", from: day(2024, 5, 20), to: day(2024, 5, 21), text: "the call"},
		{query: "the exam in 3 weeks", from: day(2024, 6, 1), to: day(2024, 6, 9), text: "the exam"},
		{query: "the visit in a few days", from: day(2024, 5, 17), to: day(2024, 5, 20), text: "the visit"},
		{query: "what will we do on 8 May", from: day(2025, 5, 8), to: day(2025, 5, 9), text: "what will we do"},
		{query: "where will I be on 20 May", from: day(2024, 5, 20), to: day(2024, 5, 21), text: "where will I be"},
		{query: "we'll go there in March", from: day(2025, 3, 1), to: day(2025, 4, 1), text: "we'll go there"},
		{query: "what did we do on 20 May", from: day(2023, 5, 20), to: day(2023, 5, 21), text: "what did we do"},
		// the present continuous with a time is an arrangement, plans are ahead; the past
		// tense, or "is" before a noun, is not
		{query: "where is Ann flying in March?", from: day(2025, 3, 1), to: day(2025, 4, 1), text: "where is Ann flying ?"},
		{query: "I'm going to Rome on 8 May", from: day(2025, 5, 8), to: day(2025, 5, 9), text: "I'm going to Rome"},
		{query: "what are Ann's plans for March", from: day(2025, 3, 1), to: day(2025, 4, 1), text: "what are Ann's plans for"},
		{query: "what was Ann doing in March", from: day(2024, 3, 1), to: day(2024, 4, 1), text: "what was Ann doing"},
		{query: "what were Ann's plans for March", from: day(2024, 3, 1), to: day(2024, 4, 1), text: "what were Ann's plans for"},
		{query: "where is the wedding in March", from: day(2024, 3, 1), to: day(2024, 4, 1), text: "where is the wedding"},
		{query: "is anything happening in March", from: day(2025, 3, 1), to: day(2025, 4, 1), text: "is anything happening"},
		{query: "куди Анна збирається в березні", from: day(2025, 3, 1), to: day(2025, 4, 1), text: "куди Анна збирається"},
		{query: "куда Анна собирается в марте", from: day(2025, 3, 1), to: day(2025, 4, 1), text: "куда Анна собирается"},
		{query: "what did we do this past month", from: day(2024, 4, 15), to: day(2024, 5, 16), text: "what did we do"},
		{query: "what did we talk about 3 weeks back", from: day(2024, 4, 20), to: day(2024, 4, 28), text: "what did we talk about"},
		{query: "what did Ann do at the start of the year", from: day(2024, 1, 1), to: day(2024, 5, 1), text: "what did Ann do"},
		{query: "bills at the end of the month", from: day(2024, 5, 21), to: day(2024, 6, 1), text: "bills"},
		{query: "the year we met", text: "the year we met"},
		// holidays; the name stays, as a season's does
		{query: "what did we do last Christmas", from: day(2023, 12, 24), to: day(2023, 12, 27), text: "what did we do Christmas"},
		{query: "what will we do at Christmas", from: day(2024, 12, 24), to: day(2024, 12, 27), text: "what will we do Christmas"},
		{query: "what did we do on Christmas Eve", from: day(2023, 12, 24), to: day(2023, 12, 25), text: "what did we do Christmas"},
		{query: "what did we do on Xmas Day", from: day(2023, 12, 25), to: day(2023, 12, 26), text: "what did we do Xmas"},
		{query: "dinner on New Year's Eve 2022", from: day(2022, 12, 31), to: day(2023, 1, 1), text: "dinner"},
		{query: "where were we at New Year", from: day(2023, 12, 31), to: day(2024, 1, 2), text: "where were we"},
		{query: "what are we doing in the new year", text: "what are we doing in the new year"},
		{query: "what did we do at Easter", from: day(2024, 3, 29), to: day(2024, 4, 2), text: "what did we do Easter"},
		{query: "the hike before Easter 2023", to: day(2023, 4, 7), text: "the hike Easter"},
		{query: "gifts for Valentine's Day", from: day(2024, 2, 14), to: day(2024, 2, 15), text: "gifts for Valentine's"},
		{query: "this Thanksgiving", from: day(2024, 11, 28), to: day(2024, 12, 2), text: "Thanksgiving"},
		{query: "Christmas presents Ann got", text: "Christmas presents Ann got"},
		{query: "the spirit of Christmas", text: "the spirit of Christmas"},
		{query: "що ми робили минулого Різдва", from: day(2023, 12, 24), to: day(2023, 12, 27), text: "що ми робили Різдва"},
		{query: "что мы делали на Рождество", from: day(2024, 1, 6), to: day(2024, 1, 9), text: "что мы делали Рождество"},
		{query: "что мы делали на Новый год", from: day(2023, 12, 31), to: day(2024, 1, 2), text: "что мы делали"},
		{query: "що ми робили на Великдень", from: day(2024, 5, 3), to: day(2024, 5, 7), text: "що ми робили Великдень"},
		{query: "новий телефон", text: "новий телефон"},
		{query: "what did we do on the 3rd", from: day(2024, 5, 3), to: day(2024, 5, 4), text: "what did we do"},
		{query: "what did we do on the 20th", from: day(2024, 4, 20), to: day(2024, 4, 21), text: "what did we do"},
		{query: "what will we do on the 20th", from: day(2024, 5, 20), to: day(2024, 5, 21), text: "what will we do"},
		{query: "the 3 of us on the sofa", text: "the 3 of us on the sofa"},
		{query: "what did we do on Dec 25", from: day(2023, 12, 25), to: day(2023, 12, 26), text: "what did we do"},
		{query: "rent for Sept 2023", from: day(2023, 9, 1), to: day(2023, 10, 1), text: "rent for"},
		{query: "Jan said hi", text: "Jan said hi"},
		{query: "what did we do the past couple of weeks", from: day(2024, 5, 1), to: day(2024, 5, 16), text: "what did we do"},
		{query: "where were we the night before last", from: day(2024, 5, 13), to: day(2024, 5, 15), text: "where were we"},
		{query: "where did we go the summer before last", from: day(2022, 6, 1), to: day(2022, 9, 1), text: "where did we go summer"},
		{query: "what did we do around New Year", from: day(2023, 12, 31), to: day(2024, 1, 2), text: "what did we do"},
		{query: "where did we live around 2020", from: day(2020, 1, 1), to: day(2021, 1, 1), text: "where did we live"},
		{query: "what did we do this time last year", from: day(2023, 5, 8), to: day(2023, 5, 23), text: "what did we do"},
		{query: "where were we this time last month", from: day(2024, 4, 12), to: day(2024, 4, 19), text: "where were we"},
		{query: "what did I buy a year and a half ago", from: day(2022, 5, 14), to: day(2023, 5, 16), text: "what did I buy"},
		{query: "what did I buy half a year ago", from: day(2023, 10, 31), to: day(2023, 12, 1), text: "what did I buy"},
		{query: "this time I mean it", text: "this time I mean it"},
		// Quarters of a year: asked on 15 May 2024, in its second.
		{query: "what did we ship last quarter?", from: day(2024, 1, 1), to: day(2024, 4, 1), text: "what did we ship ?"},
		{query: "sales this quarter", from: day(2024, 4, 1), to: day(2024, 7, 1), text: "sales"},
		{query: "what will we build next quarter?", from: day(2024, 7, 1), to: day(2024, 10, 1), text: "what will we build ?"},
		{query: "the quarter before last", from: day(2023, 10, 1), to: day(2024, 1, 1), text: ""},
		{query: "revenue in Q3", from: day(2023, 7, 1), to: day(2023, 10, 1), text: "revenue"},
		{query: "what will we launch in Q3?", from: day(2024, 7, 1), to: day(2024, 10, 1), text: "what will we launch ?"},
		{query: "the roadmap for Q1 2025", from: day(2025, 1, 1), to: day(2025, 4, 1), text: "the roadmap for"},
		{query: "hires in Q2 of 2023", from: day(2023, 4, 1), to: day(2023, 7, 1), text: "hires"},
		{query: "budget in the third quarter of 2022", from: day(2022, 7, 1), to: day(2022, 10, 1), text: "budget"},
		{query: "launches in the first quarter of last year", from: day(2023, 1, 1), to: day(2023, 4, 1), text: "launches"},
		{query: "we were trailing in the 4th quarter", text: "we were trailing in the 4th quarter"},
		{query: "what broke in the last quarter", text: "what broke in the last quarter", rcnt: true},
		{query: "the last quarter of 2023", from: day(2023, 10, 1), to: day(2024, 1, 1), text: ""},
		{query: "a quarter of the budget went on rent", text: "a quarter of the budget went on rent"},
		{query: "who scored in the third quarter of the game", text: "who scored in the third quarter of the game"},
		{query: "що ми зробили минулого кварталу?", from: day(2024, 1, 1), to: day(2024, 4, 1), text: "що ми зробили ?"},
		{query: "какие планы в этом квартале", from: day(2024, 4, 1), to: day(2024, 7, 1), text: "какие планы"},
		{query: "що ми робили на вихідних", from: day(2024, 5, 11), to: day(2024, 5, 13), text: "що ми робили"},
		{query: "what are we doing this weekend?", from: day(2024, 5, 18), to: day(2024, 5, 20), text: "what are we doing ?"},
		{query: "what did we do this weekend?", from: day(2024, 5, 11), to: day(2024, 5, 13), text: "what did we do ?"},
		{query: "what are we doing on Friday?", from: day(2024, 5, 17), to: day(2024, 5, 18), text: "what are we doing ?"},
		{query: "what did we do on Friday?", from: day(2024, 5, 10), to: day(2024, 5, 11), text: "what did we do ?"},
		{query: "що ми робимо в ці вихідні?", from: day(2024, 5, 18), to: day(2024, 5, 20), text: "що ми робимо ?"},
		{query: "что мы будем делать на выходных", from: day(2024, 5, 18), to: day(2024, 5, 20), text: "что мы будем делать"},
		{query: "що було на початку року", from: day(2024, 1, 1), to: day(2024, 5, 1), text: "що було"},
		{query: "что было в конце месяца", from: day(2024, 5, 21), to: day(2024, 6, 1), text: "что было"},
		{query: "що було позаминулого літа", from: day(2022, 6, 1), to: day(2022, 9, 1), text: "що було літа"},
		{query: "что было позапрошлым летом", from: day(2022, 6, 1), to: day(2022, 9, 1), text: "что было летом"},
		{query: "jobs before 2020", to: day(2020, 1, 1), text: "jobs"},
		{query: "pets as of December 2023", to: day(2024, 1, 1), text: "pets"},
		{query: "what changed since March", from: day(2024, 3, 1), text: "what changed"},
		{query: "what changed after April 2024", from: day(2024, 5, 1), text: "what changed"},
		{query: "news between March and April", from: day(2024, 3, 1), to: day(2024, 5, 1), text: "news"},
		{query: "photos in May of 2023", from: day(2023, 5, 1), to: day(2023, 6, 1), text: "photos"},
		{query: "what did we do on the weekend of 4 May", from: day(2024, 5, 4), to: day(2024, 5, 6), text: "what did we do"},
		{query: "what did we do the weekend of 5 May", from: day(2024, 5, 4), to: day(2024, 5, 6), text: "what did we do"},
		{query: "meetings the week of 8 May", from: day(2024, 5, 6), to: day(2024, 5, 13), text: "meetings"},
		{query: "what did we eat Monday night", from: day(2024, 5, 13), to: day(2024, 5, 15), text: "what did we eat"},
		{query: "what did we eat last Friday morning", from: day(2024, 5, 10), to: day(2024, 5, 11), text: "what did we eat"},
		{query: "what did we eat yesterday evening", from: day(2024, 5, 14), to: day(2024, 5, 15), text: "what did we eat"},
		{query: "що ми їли вчора ввечері", from: day(2024, 5, 14), to: day(2024, 5, 15), text: "що ми їли"},
		{query: "что мы ели в понедельник вечером", from: day(2024, 5, 13), to: day(2024, 5, 14), text: "что мы ели"},
		{query: "what did I cook earlier this week", from: day(2024, 5, 13), to: day(2024, 5, 16), text: "what did I cook"},
		{query: "what did I say earlier today", from: day(2024, 5, 15), to: day(2024, 5, 16), text: "what did I say"},
		{query: "what's on later this month", from: day(2024, 5, 15), to: day(2024, 6, 1), text: "what's on"},
		{query: "the talk later in 2023", from: day(2023, 1, 1), to: day(2024, 1, 1), text: "the talk later"},
		{query: "what did we eat the Friday before last", from: day(2024, 5, 3), to: day(2024, 5, 4), text: "what did we eat"},
		{query: "what did we eat Friday before last", from: day(2024, 5, 3), to: day(2024, 5, 4), text: "what did we eat"},
		{query: "what did we eat two Fridays ago", from: day(2024, 5, 3), to: day(2024, 5, 4), text: "what did we eat"},
		{query: "what happened on Sunday, March 12?", from: day(2023, 3, 12), to: day(2023, 3, 13), text: "what happened ?"},
		{query: "the party on Saturday, 11 May", from: day(2024, 5, 11), to: day(2024, 5, 12), text: "the party"},
		{query: "the party on Sunday, 11 May 2024", from: day(2024, 5, 11), to: day(2024, 5, 12), text: "the party"},
		{query: "When did Caroline go to the support group?", text: "When did Caroline go to the support group?", when: true},
		{query: "How many days passed between the trip and the wedding?", text: "How many days passed between the trip and the wedding?", when: true},
		{query: "Which year did Audrey adopt her dogs?", text: "Which year did Audrey adopt her dogs?", when: true},
		{query: "Remind me, what are the dates for the Font trip?", text: "Remind me, what are the dates for the Font trip?", when: true},
		{query: "What is my current job?", text: "What is my current job?", rcnt: true},
		{query: "When was my last haircut?", text: "When was my last haircut?", when: true, rcnt: true},
		{query: "what did we talk about the last time we spoke", text: "what did we talk about the last time we spoke", rcnt: true},
		{query: "Who may come to the party by car", text: "Who may come to the party by car"},
		{query: "what did we do last May", from: day(2023, 5, 1), to: day(2023, 6, 1), text: "what did we do last"},
		{query: "what did we do last March", from: day(2024, 3, 1), to: day(2024, 4, 1), text: "what did we do last"},
		{query: "a book by Dr. Seuss", text: "a book by Dr. Seuss"},
		{query: "2023 was a good year", text: "2023 was a good year"},
		// Ukrainian and Russian
		{query: "що ми готували вчора", from: day(2024, 5, 14), to: day(2024, 5, 15), text: "що ми готували"},
		{query: "що я казав минулого тижня?", from: day(2024, 5, 6), to: day(2024, 5, 13), text: "що я казав ?"},
		{query: "плани на цьому тижні", from: day(2024, 5, 13), to: day(2024, 5, 20), text: "плани"},
		{query: "что было на прошлой неделе", from: day(2024, 5, 6), to: day(2024, 5, 13), text: "что было"},
		{query: "книги, які я читав у березні", from: day(2024, 3, 1), to: day(2024, 4, 1), text: "книги, які я читав"},
		{query: "что я купил 8 мая", from: day(2024, 5, 8), to: day(2024, 5, 9), text: "что я купил"},
		{query: "вечірка 20 травня 2023 року", from: day(2023, 5, 20), to: day(2023, 5, 21), text: "вечірка"},
		{query: "вечеринка 8-го мая", from: day(2024, 5, 8), to: day(2024, 5, 9), text: "вечеринка"},
		{query: "де ми були в 2022 році", from: day(2022, 1, 1), to: day(2023, 1, 1), text: "де ми були"},
		{query: "що я казав 3 тижні тому", from: day(2024, 4, 20), to: day(2024, 4, 28), text: "що я казав"},
		{query: "що я казав три недели назад", from: day(2024, 4, 20), to: day(2024, 4, 28), text: "що я казав"},
		{query: "дантист тиждень тому", from: day(2024, 5, 4), to: day(2024, 5, 12), text: "дантист"},
		{query: "що ми робили позаминулого тижня", from: day(2024, 4, 29), to: day(2024, 5, 6), text: "що ми робили"},
		{query: "что было на позапрошлой неделе", from: day(2024, 4, 29), to: day(2024, 5, 6), text: "что было"},
		{query: "що ми робили минулого літа", from: day(2023, 6, 1), to: day(2023, 9, 1), text: "що ми робили літа"},
		{query: "куди ми їздили взимку", from: day(2023, 12, 1), to: day(2024, 3, 1), text: "куди ми їздили взимку"},
		{query: "что мы делали прошлым летом", from: day(2023, 6, 1), to: day(2023, 9, 1), text: "что мы делали летом"},
		{query: "що ми робили минулим літом", from: day(2023, 6, 1), to: day(2023, 9, 1), text: "що ми робили літом"},
		{query: "куда поедем следующим летом", from: day(2024, 6, 1), to: day(2024, 9, 1), text: "куда поедем летом"},
		{query: "куда мы поедем этим летом", from: day(2024, 6, 1), to: day(2024, 9, 1), text: "куда мы поедем летом"},
		{query: "куди ми поїдемо цим літом", from: day(2024, 6, 1), to: day(2024, 9, 1), text: "куди ми поїдемо літом"},
		{query: "що було позавчора", from: day(2024, 5, 13), to: day(2024, 5, 14), text: "що було"},
		{query: "зустріч у понеділок", from: day(2024, 5, 13), to: day(2024, 5, 14), text: "зустріч"},
		{query: "прогулянка минулої неділі", from: day(2024, 5, 12), to: day(2024, 5, 13), text: "прогулянка"},
		{query: "поход в прошлое воскресенье", from: day(2024, 5, 12), to: day(2024, 5, 13), text: "поход"},
		{query: "что сказала Марта про отпуск", text: "что сказала Марта про отпуск"},
		{query: "подорожі минулого року", from: day(2023, 1, 1), to: day(2024, 1, 1), text: "подорожі"},
		{query: "що ми робили торік", from: day(2023, 1, 1), to: day(2024, 1, 1), text: "що ми робили"},
		{query: "біг за останні 10 днів", from: day(2024, 5, 5), to: day(2024, 5, 16), text: "біг"},
		{query: "іспит через 3 тижні", from: day(2024, 6, 1), to: day(2024, 6, 9), text: "іспит"},
		{query: "зустріч через тиждень", from: day(2024, 5, 18), to: day(2024, 5, 26), text: "зустріч"},
		{query: "сколько дней в году", text: "сколько дней в году", when: true},
		{query: "робота до 2020 року", to: day(2021, 1, 1), text: "робота"},
		{query: "що було минулого грудня", from: day(2023, 12, 1), to: day(2024, 1, 1), text: "що було минулого"},
		{query: "ремонт на початку березня", from: day(2024, 3, 1), to: day(2024, 3, 11), text: "ремонт"},
		{query: "отпуск в конце апреля", from: day(2024, 4, 21), to: day(2024, 5, 1), text: "отпуск"},
		{query: "що змінилося з березня", from: day(2024, 3, 1), text: "що змінилося"},
		{query: "новини між березнем і квітнем", from: day(2024, 3, 1), to: day(2024, 5, 1), text: "новини"},
		{query: "Коли Оля купила машину?", text: "Коли Оля купила машину?", when: true},
		{query: "Скільки днів ми були в Японії?", text: "Скільки днів ми були в Японії?", when: true},
		{query: "В каком году Андрей переехал?", text: "В каком году Андрей переехал?", when: true},
		{query: "Що в Олі тепер?", text: "Що в Олі тепер?", rcnt: true},
		{query: "книга з Анною", text: "книга з Анною"},
		{query: "лютий мороз у суботу", from: day(2024, 5, 11), to: day(2024, 5, 12), text: "лютий мороз"},
		// days of one month, and ranges
		{query: "what did we do from 3 to 5 May?", from: day(2024, 5, 3), to: day(2024, 5, 6), text: "what did we do ?"},
		{query: "the trip 7–11 April", from: day(2024, 4, 7), to: day(2024, 4, 12), text: "the trip"},
		{query: "the trip 7-11 April", from: day(2024, 4, 7), to: day(2024, 4, 12), text: "the trip"},
		{query: "between 7 and 11 April", from: day(2024, 4, 7), to: day(2024, 4, 12)},
		{query: "з 7 по 11 квітня", from: day(2024, 4, 7), to: day(2024, 4, 12)},
		{query: "с 7 до 11 апреля", from: day(2024, 4, 7), to: day(2024, 4, 12)},
		{query: "from 2 March until 4 April", from: day(2024, 3, 2), to: day(2024, 4, 5)},
		{query: "what did we plant from March to May?", from: day(2024, 3, 1), to: day(2024, 6, 1), text: "what did we plant ?"},
		{query: "between October and May", from: day(2023, 10, 1), to: day(2024, 6, 1)},
		{query: "a meeting in Boston between August and November 2022?", from: day(2022, 8, 1), to: day(2022, 12, 1), text: "a meeting in Boston ?"},
		{query: "between November and February 2023", from: day(2022, 11, 1), to: day(2023, 3, 1)},
		{query: "between 3 August and 5 November 2022", from: day(2022, 8, 3), to: day(2022, 11, 6)},
		{query: "I ran 5 to 10 km on 3 May", from: day(2024, 5, 3), to: day(2024, 5, 4), text: "I ran 5 to 10 km"},
		// a plural is no "this day": «ці дні», «эти дни» are "these days"; «скільки тижнів
		// тому» is "how many weeks ago", not a week ago
		{query: "складеш програму на ці дні?", text: "складеш програму на ці дні?"},
		{query: "что делать в эти дни", text: "что делать в эти дни"},
		{query: "Скільки тижнів тому ми забрали машину?", text: "Скільки тижнів тому ми забрали машину?", when: true},
		{query: "how many weeks ago did we pick up the car?", text: "how many weeks ago did we pick up the car?", when: true},
	} {
		got := ParseTime(c.query, now)
		if !got.Span.From.Equal(c.from) || !got.Span.To.Equal(c.to) || got.Text != c.text || got.When != c.when || got.Recent != c.rcnt {
			t.Errorf("ParseTime(%q) = %s – %s %q when %v recent %v, want %s – %s %q when %v recent %v", c.query,
				got.Span.From.Format(time.DateOnly), got.Span.To.Format(time.DateOnly), got.Text, got.When, got.Recent,
				c.from.Format(time.DateOnly), c.to.Format(time.DateOnly), c.text, c.when, c.rcnt)
		}
		if !got.Span.IsZero() && !mayTell(c.query) {
			t.Errorf("mayTell(%q) = false, but it names a time", c.query)
		}
	}
}

// TestTellTime: a date a message names without a year is the one nearest to when it was
// said, ahead or back, where a question's is the latest.
func TestTellTime(t *testing.T) {
	said := func(m time.Month, d int) time.Time { return time.Date(2023, m, d, 18, 0, 0, 0, time.UTC) }
	at := func(m time.Month, d int) time.Time { return time.Date(2024, m, d, 18, 0, 0, 0, time.UTC) }
	day := func(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }
	for _, c := range []struct {
		text         string
		at, from, to time.Time // zero: open
	}{
		{"13 мая у нас двадцать лет свадьбы!", said(time.May, 8), day(2023, 5, 13), day(2023, 5, 14)},
		{"booked the cabin in Yaremche for 7 to 11 August", said(time.July, 18), day(2023, 8, 7), day(2023, 8, 12)},
		{"забронювали садибу з 7 по 11 серпня, складеш програму на ці дні?", said(time.July, 18), day(2023, 8, 7), day(2023, 8, 12)},
		{"I ran my first 10k on 23 April!", said(time.April, 25), day(2023, 4, 23), day(2023, 4, 24)},
		{"the redesign ships in Q3, we'll demo it in September", said(time.May, 2), day(2023, 7, 1), day(2023, 10, 1)},
		{"we closed 40 deals last quarter", said(time.May, 2), day(2023, 1, 1), day(2023, 4, 1)},
		{"the party on 28 December was fun", said(time.January, 3), day(2022, 12, 28), day(2022, 12, 29)},
		{"we fly out on 2 January", said(time.December, 20), day(2024, 1, 2), day(2024, 1, 3)},
		// ordinal days, a weekday or "the" before them
		{"Booked. Font is now 4th–8th October", said(time.September, 3), day(2023, 10, 4), day(2023, 10, 9)},
		{"Peak weekend: 13th-15th Sept", said(time.August, 22), day(2023, 9, 13), day(2023, 9, 16)},
		{"I'm thinking Fri 20th to Tue 24th September", said(time.August, 20), day(2023, 9, 20), day(2023, 9, 25)},
		{"the gîte is ours from the 4th to the 8th of October", said(time.September, 3), day(2023, 10, 4), day(2023, 10, 9)},
		{"I'm on nights 3rd–9th Oct", said(time.September, 10), day(2023, 10, 3), day(2023, 10, 10)},
		// each time a message names is the nearest, whatever the rest of it says; a weekday
		// before a day of the month picks the month; an open span keeps its open end
		{"the house has had no hot water since Christmas Eve and the landlord is looking into it", at(time.January, 4), day(2023, 12, 24), time.Time{}},
		{"Sarah's mum has Alfie, we're back on the 1st", at(time.July, 22), day(2024, 8, 1), day(2024, 8, 2)},
		{"the owner double booked September. She's offered us Fri 4th to Tue 8th October", at(time.September, 3), day(2024, 9, 1), day(2024, 10, 9)},
		{"So, on Friday the 14th I turn 35", at(time.June, 10), day(2024, 6, 14), day(2024, 6, 15)},
		{"Moved us to Friday 13th at the Bank", at(time.November, 28), day(2024, 12, 13), day(2024, 12, 14)},
		{"Easter. Portland. Fri 29th to Mon 1st. Who's in?", at(time.March, 14), day(2024, 3, 29), day(2024, 4, 2)},
		{"new rota means I've got Tuesdays off til August", at(time.July, 16), time.Time{}, day(2024, 9, 1)},
		// or as the words around it say, nearest the time first, in its clause
		{"The baby is due early November, so the nursery has to be done soon", said(time.April, 10), day(2023, 11, 1), day(2023, 11, 11)},
		{"I'll finally hand in the thesis in January", said(time.June, 10), day(2024, 1, 1), day(2024, 2, 1)},
		{"I was in Paris in March", said(time.October, 10), day(2023, 3, 1), day(2023, 4, 1)},
		{"у березні я був у Парижі", said(time.October, 10), day(2023, 3, 1), day(2023, 4, 1)},
		{"в январе буду в Риме", said(time.June, 10), day(2024, 1, 1), day(2024, 2, 1)},
		{"I was promoted in March and we're moving to Leeds in January", said(time.June, 10), day(2023, 3, 1), day(2024, 2, 1)},
		{"I was in Paris in March and we fly to Rome in November", said(time.June, 10), day(2023, 3, 1), day(2023, 12, 1)},
		{"the nursery has to be painted by autumn", said(time.April, 10), time.Time{}, day(2023, 12, 1)},
		// the year the message names, not the nearest
		{"Trips for 2024, I reckon: Portland at Easter, the Peaks in September", at(time.January, 2), day(2024, 3, 29), day(2024, 10, 1)},
	} {
		if got := TellTime(c.text, c.at).Span; !got.From.Equal(c.from) || !got.To.Equal(c.to) {
			t.Errorf("TellTime(%q, %s) = %s – %s, want %s – %s", c.text, c.at.Format(time.DateOnly),
				got.From.Format(time.DateOnly), got.To.Format(time.DateOnly), c.from.Format(time.DateOnly), c.to.Format(time.DateOnly))
		}
	}
	// a question reads the same date back
	if got := ParseTime("what did we do on 13 May?", said(time.May, 8)).Span.From; !got.Equal(day(2022, 5, 13)) {
		t.Errorf("ParseTime of 13 May asked on 8 May = %s, want 2022-05-13", got.Format(time.DateOnly))
	}
}

// TestMayTell: the quick test that a text names no time (mayTell) is never wrong where
// ParseTime finds one, on every turn of LoCoMo read as of when it was said, and passes
// over most of those that name none.
func TestMayTell(t *testing.T) {
	for _, c := range []struct {
		text string
		may  bool
	}{
		{"the plumber fixed the boiler", false},
		{"See you at the lake, it was great!", false},
		{"Yesterday's storm", true},
		{"LAST WEEK we met", true},
		{"the 3rd", true},
		{"вчора", true},
		{"what a lovely evening", true},
	} {
		if got := mayTell(c.text); got != c.may {
			t.Errorf("mayTell(%q) = %v, want %v", c.text, got, c.may)
		}
	}
}

func TestParseTimeAnchors(t *testing.T) {
	now := time.Date(2024, 5, 15, 10, 30, 0, 0, time.UTC)
	for _, c := range []struct {
		query string
		want  []Anchor
	}{
		{"what did I buy before the trip?", []Anchor{{Event: "the trip"}}},
		{"what did alice do before the trip to chicago", []Anchor{{Event: "the trip to chicago"}}},
		{"Where did John live before traveling to Chicago", []Anchor{{Event: "traveling to Chicago"}}},
		{"how did she feel after the accident, and why?", []Anchor{{Event: "the accident", After: true}}},
		{"what changed since we moved to Berlin", []Anchor{{Event: "we moved to Berlin", After: true}}},
		{"plans after the wedding and before the trip to Japan", []Anchor{{Event: "the wedding", After: true}, {Event: "the trip to Japan"}}},
		{"what happened after that?", nil},     // no event to find
		{"a book by Dr. Seuss", nil},           // "by" is not an anchor's bound
		{"what changed after April 2024", nil}, // a time, not an event
		{"news from Ann before 2020", nil},     // "from" is no anchor either
		{"what did we do before it rained", []Anchor{{Event: "it rained"}}},
		{"що я купив перед поїздкою?", []Anchor{{Event: "поїздкою"}}},
		{"як вона почувалася після аварії", []Anchor{{Event: "аварії", After: true}}},
		{"что изменилось после переезда в Берлин", []Anchor{{Event: "переезда в Берлин", After: true}}},
		{"я ходив до лікаря", nil}, // «до» is "to" as often as "until"
		{"книга з Анною", nil},     // «з» is "with" as often as "since"
	} {
		got := ParseTime(c.query, now)
		if len(got.Anchors) != len(c.want) {
			t.Errorf("ParseTime(%q).Anchors = %+v, want %+v", c.query, got.Anchors, c.want)
			continue
		}
		for i := range c.want {
			if got.Anchors[i] != c.want[i] {
				t.Errorf("ParseTime(%q).Anchors = %+v, want %+v", c.query, got.Anchors, c.want)
			}
		}
		if got.Text != c.query && len(c.want) > 0 {
			t.Errorf("ParseTime(%q).Text = %q: an anchor's words stay searched", c.query, got.Text)
		}
	}
}

func TestDated(t *testing.T) {
	for text, want := range map[string]bool{
		"I started a new job as a Financial Analyst last week":         true,
		"Last Sunday was awesome - we took a rock climbing class":      true,
		"We adopted another puppy called Pixie. She's SO cute!":        false,
		"I've had them for 3 years! Their names are Pepper and Panda.": false,
		"we moved here in 2019":                                        true,
		"going camping this weekend":                                   true,
		"See you on Saturday":                                          true,
		"we spent Xmas at my parents'":                                 true,
		"Минулої неділі ми ходили в гори":                              true,
		"я купив машину 3 роки тому":                                   true,
		"тому що я втомився":                                           false,
		"привіт, як справи?":                                           false,
		"he said ' and left":                                           false,
		"we met the week before last":                                  true,
		"I was there before, last time it rained":                      false,
		"позаминулого тижня ми були в Києві":                           true,
		"we went to Spain last summer":                                 true,
		"I love summer":                                                false,
		"we moved in two weeks back":                                   true,
		"I'll be right back":                                           false,
		"Christmas was lovely this year":                               true,
		"we went there the summer before last":                         true,
	} {
		if got := Dated(text); got != want {
			t.Errorf("Dated(%q) = %v, want %v", text, got, want)
		}
	}
}

// TestSpanDescribe: a span reads as a person would say it, in the chat's time zone.
func TestSpanDescribe(t *testing.T) {
	kyiv, err := time.LoadLocation("Europe/Kyiv")
	if err != nil {
		t.Skip(err)
	}
	day := func(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, kyiv) }
	for _, c := range []struct {
		span Span
		want string
	}{
		{Span{From: day(2026, 12, 2), To: day(2026, 12, 3)}, "on Wed 2 Dec 2026"},
		{Span{From: day(2026, 11, 23), To: day(2026, 11, 30)}, "between Mon 23 Nov and Sun 29 Nov 2026"},
		{Span{From: day(2025, 12, 29), To: day(2026, 1, 5)}, "between Mon 29 Dec 2025 and Sun 4 Jan 2026"},
		{Span{To: day(2023, 1, 1)}, "before Sun 1 Jan 2023"},
		{Span{From: day(2024, 3, 1)}, "since Fri 1 Mar 2024"},
		{Span{From: day(2026, 12, 2).Add(6 * time.Hour), To: day(2026, 12, 2).Add(12 * time.Hour)}, "between Wed 2 Dec 2026 06:00 and Wed 2 Dec 2026 12:00"},
		{Span{}, "at any time"},
	} {
		// given in UTC, said in Kyiv's time
		utc := Span{From: c.span.From.UTC(), To: c.span.To.UTC()}
		if c.span.From.IsZero() {
			utc.From = time.Time{}
		}
		if c.span.To.IsZero() {
			utc.To = time.Time{}
		}
		if got := utc.Describe(kyiv); got != c.want {
			t.Errorf("%v: %q, want %q", c.span, got, c.want)
		}
	}
}

// TestThisSeason: "this spring" is the one going on or else this year's, whenever it is
// asked: in December the spring gone, in January the autumn to come; a winter not going on
// is the nearer one.
func TestThisSeason(t *testing.T) {
	day := func(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }
	for _, c := range []struct {
		now      time.Time
		query    string
		from, to time.Time
	}{
		{day(2026, 12, 7), "what did I plant this spring?", day(2026, 3, 1), day(2026, 6, 1)},
		{day(2026, 12, 7), "что мы сажали этой весной?", day(2026, 3, 1), day(2026, 6, 1)},
		{day(2026, 12, 7), "is it cold this winter?", day(2026, 12, 1), day(2027, 3, 1)},
		{day(2027, 1, 10), "when do I start college this fall?", day(2027, 9, 1), day(2027, 12, 1)},
		{day(2026, 11, 20), "where do we go skiing this winter?", day(2026, 12, 1), day(2027, 3, 1)},
		{day(2026, 3, 3), "how much snow did we get this winter?", day(2025, 12, 1), day(2026, 3, 1)},
		{day(2026, 5, 15), "plans this summer", day(2026, 6, 1), day(2026, 9, 1)},
		{day(2026, 7, 15), "what did we do this summer", day(2026, 6, 1), day(2026, 9, 1)},
	} {
		got := ParseTime(c.query, c.now).Span
		if !got.From.Equal(c.from) || !got.To.Equal(c.to) {
			t.Errorf("ParseTime(%q) asked %s = %s, want %s", c.query, c.now.Format(time.DateOnly), got.Describe(time.UTC), Span{From: c.from, To: c.to}.Describe(time.UTC))
		}
	}
}
