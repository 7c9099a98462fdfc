package sqlite

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
