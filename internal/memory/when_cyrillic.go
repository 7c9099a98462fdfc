package memory

import (
	"strings"
	"sync"
)

// cyrillicTime maps the Ukrainian and Russian words of time expressions and of questions
// (коли, скільки, всі), in the forms they take in a sentence, to the English words
// ParseTime, Dated and Aggregate read, so that «що ми робили минулого тижня?» reads as
// "що ми робили last week?", «3 тижні тому» as "3 week ago" and «8 травня 2023 року» as
// "8 may 2023 year". A few have no English word of their own: "ereyesterday"
// (позавчора), "overmorrow" (післязавтра), "lastyear" (торік), "howmany" (скільки);
// через is "within", as «в»/«у» are "in" and only через + a unit is a time ahead.
// Prepositions that are not always about time map to the bound that makes no anchor:
// до → "by" («до лікаря» is "to the doctor"), з/с/від/от → "from" («з Анною» is "with
// Ann").
//
// It is built on first use (sync.OnceValue), so a process that never reads a Cyrillic
// word (a one-off English search) does not pay the ~0.4 ms at start.
var cyrillicTime = sync.OnceValue(func() map[string]string {
	m := map[string]string{}
	add := func(en string, forms string) {
		for _, f := range strings.Fields(forms) {
			m[f] = en
		}
	}
	// days around today
	add("today", "сьогодні сегодня")
	add("yesterday", "вчора учора вчера")
	add("tomorrow", "завтра")
	add("ereyesterday", "позавчора позавчера")
	add("overmorrow", "післязавтра послезавтра")
	add("lastyear", "торік")
	// last, this, next, past (the past 10 days), latest
	add("last", "минулого минулий минула минулої минулому минулій минуле минулі минулих минулу минулим "+
		"прошлого прошлый прошлая прошлое прошлой прошлом прошлую прошлые прошлых прошлым "+
		"прошедшего прошедший прошедшая прошедшей прошедшем прошедшую прошедшие прошедших прошедшим")
	add("beforelast", "позаминулого позаминулий позаминула позаминулої позаминулому позаминулій позаминуле позаминулі позаминулих позаминулу "+
		"позапрошлого позапрошлый позапрошлая позапрошлое позапрошлой позапрошлом позапрошлую позапрошлые позапрошлых позапрошлым")
	add("this", "цього цей ця цієї цьому цій цю ці цих цим "+
		"этого этот эта этой этом эту эти этих этим")
	add("next", "наступного наступний наступна наступної наступному наступній наступне наступні наступних наступну наступним "+
		"следующего следующий следующая следующей следующем следующую следующие следующих следующим "+
		"будущего будущий будущая будущей будущем будущую будущим")
	add("past", "останні останніх последние последних")
	add("latest", "останній остання останнє останнього останньому останню "+
		"последний последняя последнее последнего последнем последнюю")
	add("lately", "останнім нещодавно недавно")
	add("now", "зараз тепер нині сейчас теперь ныне")
	add("still", "досі")
	add("current", "поточний поточна поточне поточного поточному текущий текущая текущее текущего текущем")
	// units, in every case and number: ParseTime reads plurals and singulars alike after a
	// number, but "this day" is today and «ці дні» "these days"; a form of both numbers
	// (тижні: «3 тижні», «на цьому тижні») is read as the singular
	add("day", "день дня днем дню")
	add("days", "дні днів днях дней дни")
	add("week", "тиждень тижня тижні тижнем тижню неделя неделю недели неделе")
	add("weeks", "тижнів тижнях тижнями недель неделями неделях")
	add("weekend", "вихідні вихідних вихідними выходные выходных выходными")
	add("month", "місяць місяця місяці місяцем місяцю месяц месяца месяце месяцем")
	add("months", "місяців місяцях місяцями месяцев месяцы месяцах месяцами")
	add("year", "рік року році роком год года году годом р г")
	add("years", "роки років роках роками годы лет годах годами")
	add("quarter", "квартал кварталу кварталі кварталом квартала квартале")
	add("night", "ніч ночі вночі уночі ночь ночью")
	add("morning", "ранок ранку вранці зранку уранці утро утра утром")
	add("evening", "вечір вечора ввечері увечері вечер вечера вечером")
	add("ago", "тому назад")
	add("in", "в у во")
	add("within", "через") // «через тиждень»: a week from now
	add("on", "на")
	add("during", "протягом")
	add("over", "за")
	// «8-го травня»
	add("of", "го")
	// «на початку березня», «в конце мая»: the part of a month (year, season)
	add("beginning", "початку начале")
	add("middle", "середині середине")
	add("end", "кінці наприкінці конце")
	// seasons, in the cases they take; «влітку», «летом» are "in summer"
	add("spring", "весна весни весну весною навесні весной весны весне")
	add("summer", "літо літа літом влітку літку лето лета летом летнем")
	add("autumn", "осінь осені осінню восени осень осени осенью")
	add("winter", "зима зими зиму зимою взимку зимой зимы зиме")
	// holidays: Ukraine's Christmas is on 25 December, Russia's on 7 January; Easter is
	// the Orthodox one in both
	add("christmas", "різдво різдва різдві")
	add("orthodoxchristmas", "рождество рождества рождестве")
	add("orthodoxeaster", "великдень великодня великодні пасха пасху пасхи пасхе")
	add("new", "новий нового новому новый новом")
	// bounds
	add("before", "перед")
	add("after", "після после")
	add("by", "до")
	add("from", "з із зі с со від от")
	add("between", "між между")
	add("and", "і й та и")
	add("but", "а але но однак однако")
	// questions
	add("when", "коли когда")
	add("howmany", "скільки сколько")
	add("which", "який яка яке якого якому якій які каком какой какая какое какого какие котором которого")
	add("date", "числа число")
	add("how", "як как")
	add("long", "довго долго")
	add("what", "що что")
	add("where", "де где")
	add("who", "хто кто")
	add("why", "чому почему")
	add("times", "разів рази раза")
	// questions for several things (Aggregate); Russian «все» is "everything" and "still"
	// as often as "all", so it is left out
	add("all", "всі усі всіх усіх всех")
	add("total", "загалом усього всього всего итого")
	add("both", "обидва обидві оба обе")
	add("every", "кожен кожного кожну кожний кожне каждый каждого каждую каждое")
	add("will", "буду будеш буде будемо будете будуть будешь будет будем будут")
	// going to, planning to: what is to come (speaksAhead)
	add("planning", "збираюся збираюсь збираєшся збирається збираємося збираємось збираєтеся збираються "+
		"собираюсь собираешься собирается собираемся собираетесь собираются "+
		"планую плануєш планує плануємо плануєте планують планирую планируешь планирует планируем планируете планируют "+
		// the present tense of "do" with a time is a plan: «що ми робимо в ці вихідні?»
		"роблю робиш робить робимо робите роблять делаю делаешь делает делаем делаете делают")
	// counts
	add("one", "один одна одну одне одного одно")
	add("two", "два дві две двох двух")
	add("three", "три трьох трех трёх")
	add("four", "чотири четыре")
	add("five", "п'ять пять")
	add("six", "шість шесть")
	add("seven", "сім семь")
	add("eight", "вісім восемь")
	add("nine", "дев'ять девять")
	add("ten", "десять")
	add("several", "кілька декілька несколько")
	add("couple", "пару пара пари")
	// months: nominative, genitive (8 травня), locative (у травні); read as a month only
	// after a day, a preposition or a bound, or before a year (spanAt), since some are
	// words too: «лютий» is "fierce", «Марта» a name
	add("january", "січень січня січні январь января январе")
	add("february", "лютий лютого лютому февраль февраля феврале")
	add("march", "березень березня березні март марта марте")
	add("april", "квітень квітня квітні апрель апреля апреле")
	add("may", "травень травня травні май мая мае")
	add("june", "червень червня червні июнь июня июне")
	add("july", "липень липня липні июль июля июле")
	add("august", "серпень серпня серпні август августа августе")
	add("september", "вересень вересня вересні сентябрь сентября сентябре")
	add("october", "жовтень жовтня жовтні октябрь октября октябре")
	add("november", "листопад листопада листопаді ноябрь ноября ноябре")
	add("december", "грудень грудня грудні декабрь декабря декабре")
	// and instrumental, for «між березнем і квітнем»
	add("january", "січнем январём январем")
	add("february", "лютим февралём февралем")
	add("march", "березнем мартом")
	add("april", "квітнем апрелем")
	add("may", "травнем маем")
	add("june", "червнем июнем")
	add("july", "липнем июлем")
	add("august", "серпнем августом")
	add("september", "вереснем сентябрём сентябрем")
	add("october", "жовтнем октябрём октябрем")
	add("november", "листопадом ноябрём ноябрем")
	add("december", "груднем декабрём декабрем")
	// weekdays: nominative, accusative (у понеділок), genitive (минулого понеділка)
	add("monday", "понеділок понеділка понеділку понедельник понедельника")
	add("tuesday", "вівторок вівторка вівторку вторник вторника")
	add("wednesday", "середа середу середи среда среду среды")
	add("thursday", "четвер четверга четвергу четверг четверга")
	add("friday", "п'ятниця п'ятницю п'ятниці пятница пятницу пятницы")
	add("saturday", "субота суботу суботи суббота субботу субботы")
	add("sunday", "неділя неділю неділі воскресенье воскресенья")
	return m
})
