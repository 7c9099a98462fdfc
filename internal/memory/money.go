package memory

import (
	"regexp"
	"strings"
)

// moneyWords ask for an amount of money: "how much did I spend on…", "what did the car
// cost me?", "how much is my rent?", in English, Ukrainian and Russian (their common
// forms; a question asks with few of them). Not "save" nor "total": "which recipe did I
// save?", "the total number of books".
var moneyWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields("cost costs costed costing spend spends spent spending pay pays paid paying price prices priced " +
		"earn earns earned earning raise raised raising owe owes owed charge charged budget rent salary " +
		"bill bills money fee fees expense expenses expensive cheap cheaper afford " +
		"коштує коштував коштувала коштувало коштували витратив витратила витратили заплатив заплатила заплатили " +
		"обійшовся обійшлася обійшлося обійшлись обійшлися ціна ціну гроші грошей зарплата оренда обошёлся обошелся обошлась обошлось обошлись стоит стоил стоила стоило стоили потратил потратила потратили " +
		"заплатил заплатила заплатили цена цену деньги денег аренда") {
		m[w] = true
	}
	return m
}()

// notMoney are the words with which a question of spending asks for time or a count
// instead: "how much time did I spend…", "how long", "how many days did I spend…".
var notMoney = map[string]bool{"time": true, "long": true, "hours": true, "minutes": true, "days": true, "weeks": true,
	"nights": true, "times": true, "часу": true, "времени": true, "днів": true, "дней": true, "годин": true, "часов": true}

// asksMoney reports whether query asks for an amount of money (see moneyWords), not for
// time or a count spent (see notMoney).
func asksMoney(query string) bool {
	money := false
	for _, w := range splitWords(strings.ToLower(query)) {
		if notMoney[w] {
			return false
		}
		money = money || moneyWords[w]
	}
	return money
}

// amountRE matches an amount of money: a currency sign before or after a number ("$85",
// "£13,950", "40 €", "₴500"), or a number before a currency's name or code ("85
// dollars", "20 bucks", "40 EUR", "500 грн").
var amountRE = regexp.MustCompile(`(?i)[$£€¥₹₴₽]\s?\d|\d[\d,.]*\s?(?:[$£€¥₹₴₽]|(?:k\s)?(?:dollars?|bucks|euros?|pounds|quid|usd|eur|gbp|cad|aud|chf|inr|rupees|грн|гривень|гривні|гривня|руб|рублів|рублей|рубля|доларів|долари|долара|долларов|доллара|доллары|баксів|баксов|євро|евро|лари|ларі|gel|lari|злотих|злотых|pln|тенге|kzt)(?:[^\p{L}]|$))`)

// saysMoney reports whether text holds an amount of money (see amountRE).
func saysMoney(text string) bool { return amountRE.MatchString(text) }
