package sqlite

import (
	"database/sql/driver"
	"time"

	"modernc.org/sqlite"

	"github.com/mynah-ai/mynah"
)

// contextFunction is the SQL function that writes a message's previous column in the
// history index (migration 0019): mynah_context(body, time, reply_text, previous) with
// previous a JSON array of [time, text] of the two messages before it, nearest first;
// times in Unix milliseconds. It is mynah.PreviousContext.
const contextFunction = "mynah_context"

func init() {
	sqlite.MustRegisterDeterministicScalarFunction(contextFunction, 4, func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
		at, _ := args[1].(int64)
		prev, err := mynah.PreviousFromJSON(textArg(args[3]))
		if err != nil {
			return nil, err
		}
		return mynah.PreviousContext(textArg(args[0]), time.UnixMilli(at), textArg(args[2]), prev), nil
	})
}

func textArg(v driver.Value) string {
	switch v := v.(type) {
	case string:
		return v
	case []byte:
		return string(v)
	}
	return ""
}
