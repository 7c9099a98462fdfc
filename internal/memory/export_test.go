package memory

// MayTell is mayTell, for the benchmark's tests (package memory_test).
var MayTell = mayTell
