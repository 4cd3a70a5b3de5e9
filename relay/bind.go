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
//     has BindBySubmit: only for a session with no tab yet.
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
	default:
		return false
	}
	return true
}
