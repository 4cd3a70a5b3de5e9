package ingest

import (
	"github.com/logwatch/logwatch/relay"
	"github.com/logwatch/logwatch/watcher/registry"
)

// RegistrySink feeds Claude Code's session registry (package watcher/registry)
// into the relay.
type RegistrySink struct{ R *relay.Relay }

// RegistryEntry implements registry.Sink.
func (s RegistrySink) RegistryEntry(e registry.Entry) {
	s.R.RegistryEntry(relay.RegistryProcess{
		Path: e.Path, Pid: e.Pid, SessionID: e.SessionID, ProcStart: e.ProcStart, StartedAt: e.StartedAt,
		Status: e.Status, WaitingFor: e.WaitingFor, StatusUpdatedAt: e.StatusUpdatedAt,
	})
}

// RegistryRemoved implements registry.Sink.
func (s RegistrySink) RegistryRemoved(path string) { s.R.RegistryRemoved(path) }
