package relay

import "github.com/logwatch/logwatch/parsers"

// maxDriftKeys bounds the distinct unknown line types counted by agent and
// version: a log full of invented types must not grow the counters.
const maxDriftKeys = 64

// driftOther is where unknown types past maxDriftKeys are counted.
const driftOther = "other"

// countDrift counts a line whose type the agent's parser does not know:
// what a new release writes that logwatch has not been proven against. The
// parsers give such a line no evidence (KindNone), so it moves no session;
// this makes it visible (`status` counters, doctor).
func (m *machine) countDrift(e *entry, ev parsers.Evidence) {
	if !ev.Unknown {
		return
	}
	m.counters.LinesUnknown++
	if m.counters.Drift == nil {
		m.counters.Drift = map[string]int64{}
	}
	v := e.s.AgentVersion
	if v == "" {
		v = "?"
	}
	k := string(e.s.Agent) + " " + v + " " + ev.Type
	if _, ok := m.counters.Drift[k]; !ok && len(m.counters.Drift) >= maxDriftKeys {
		k = driftOther
	}
	m.counters.Drift[k]++
}
