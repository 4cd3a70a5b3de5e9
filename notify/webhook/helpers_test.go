package webhook

import (
	"fmt"
	"time"

	"github.com/rs/zerolog"

	"github.com/logwatch/logwatch/relay/wire"
)

var nopLog = zerolog.Nop()

func waiting(i int) wire.Event {
	return wire.Event{Session: fmt.Sprint("s", i), Agent: "claude", State: "waiting", Reason: "permission",
		Since: time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)}
}
