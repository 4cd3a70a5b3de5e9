package relay

import "github.com/logwatch/logwatch/relay/wire"

// The relay's own code speaks in the wire types; these names keep it (and
// its tests) short. Code outside the relay imports relay/wire.
type (
	Request       = wire.Request
	Response      = wire.Response
	Event         = wire.Event
	Status        = wire.Status
	WorktreeState = wire.WorktreeState
	Counters      = wire.Counters
	ConnCounters  = wire.ConnCounters
	RemoteUpdate  = wire.RemoteUpdate
	RemoteState   = wire.RemoteState
)

const (
	Protocol   = wire.Protocol
	MaxRequest = wire.MaxRequest

	OpHook      = wire.OpHook
	OpKey       = wire.OpKey
	OpAck       = wire.OpAck
	OpTabClosed = wire.OpTabClosed
	OpTabOpened = wire.OpTabOpened
	OpStatus    = wire.OpStatus
	OpSubscribe = wire.OpSubscribe
	OpFocus     = wire.OpFocus

	KeyEsc   = wire.KeyEsc
	KeyCtrlC = wire.KeyCtrlC
	KeyEnter = wire.KeyEnter

	SecretHeader = wire.SecretHeader
	TabHeader    = wire.TabHeader
)
