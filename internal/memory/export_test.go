package memory

// StopWords are the words search drops from queries, for tests that rank outside it.
var StopWords = stopWords
