package relay

import "time"

// binder holds which tab shows which session, and what binds them: the
// process each tab runs, and the submits (Enter) typed in tabs.
//
// A session gets its tab by, in order of precedence:
//   - a hook's LOGWATCH_TAB (hook, steps.go): first-hand;
//   - registry ancestry (regBind, registry.go), for agents whose
//     parsers.Spec has a Registry: the tab whose process is the agent's or
//     its nearest ancestor, unless the tab shows a live session of another
//     agent process it runs (a nested agent);
//   - submit correlation (submitbind.go), for agents whose parsers.Spec
//     has BindBySubmit: only for a session with no tab yet; a turn start
//     stamped long after its Enter only in a tab whose process has shown
//     no session (bind.submit_first).
//
// Ambiguity binds nothing: two tabs reporting the same process, a tab whose
// process is every tab's ancestor, submits in two candidate tabs.
//
// tabs is written by setTab alone.
type binder struct {
	tabs       map[string]string  // tab → bound conversation id
	tabProcs   map[string]tabProc // tab → the process it runs (tabproc.go)
	tabPruneAt int                // len(tabProcs) at which dead tabs' processes are dropped
	// submitbind.go: tab → its last unused submit, and the stamp of the
	// last ambiguous turn start.
	submits     map[string]time.Time
	ambiguousAt time.Time
	recentBinds []bindRec // bindings by submit still open to a late submit
	// fresh: tab → the Enters typed in it since its process was reported,
	// while no session has been shown in it (bind.submit_first).
	fresh map[string]int
}

// setTab binds tab to session id ("": unbinds it) and reports whether that
// changed the binding.
func (b *binder) setTab(tab, id string) bool {
	cur, ok := b.tabs[tab]
	switch {
	case id == "" && ok:
		delete(b.tabs, tab)
	case id != "" && cur != id:
		b.tabs[tab] = id
		delete(b.fresh, tab) // its process has shown a session
	default:
		return false
	}
	return true
}
